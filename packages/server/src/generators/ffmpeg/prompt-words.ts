/**
 * The value whose pattern occurs first in the prompt: when a prompt names several options
 * ("black and white, then warm"), the one written first wins.
 */
export function earliestMatch<T>(text: string, table: Array<[T, RegExp]>): T | undefined {
  let best: { value: T; at: number } | undefined;
  for (const [value, re] of table) {
    const at = text.search(re);
    if (at >= 0 && (!best || at < best.at)) best = { value, at };
  }
  return best?.value;
}

/** The seconds a model renders, as people write them: "5", "5 or 10", "4, 8 or 12", "1-15". */
export function durationsText(durations: readonly number[]): string {
  const contiguous = durations.length > 2 && durations.every((d, i) => i === 0 || d === durations[i - 1] + 1);
  if (contiguous) return `${durations[0]}-${durations.at(-1)}`;
  if (durations.length < 2) return durations.join('');
  return `${durations.slice(0, -1).join(', ')} or ${durations.at(-1)}`;
}

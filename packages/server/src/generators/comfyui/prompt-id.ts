/**
 * Ids we hand to ComfyUI. Both are derived from the task, never random, so a retried request or
 * a later attempt computes the same value and can find what an earlier one left on the host.
 */
import { createHash } from 'node:crypto';

/**
 * The ComfyUI `prompt_id` of one attempt: a UUID (version 8, "custom") in the canonical lowercase
 * hyphenated form, which newer ComfyUI builds demand (anything else is a 400 `invalid_prompt_id`).
 * ComfyUI does not refuse a prompt_id it already holds, it queues the prompt twice; so the id alone
 * does not make a submit idempotent: the caller must look the id up before (re)submitting.
 */
export function promptIdFor(taskId: string, attempt: number): string {
  const hex = createHash('sha256').update(`vidgen:prompt:${taskId}:${attempt}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const [a, b, c, d, e] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(13, 16), hex.slice(17, 20), hex.slice(20, 32)];
  return `${a}-${b}-8${c}-${variant}${d}-${e}`;
}

/** A seed for jobs that did not give one: fixed per task, so a retry renders the same video. */
export function seedFor(taskId: string): number {
  return createHash('sha256').update(`vidgen:seed:${taskId}`).digest().readUInt32BE(0);
}

/** A websocket client id: ComfyUI sends a prompt's messages only to the client id it was queued with. */
export function clientIdFor(promptId: string): string {
  return `vidgen-${promptId.replaceAll('-', '')}`;
}

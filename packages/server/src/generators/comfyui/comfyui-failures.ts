/**
 * ComfyUI's failures as GenerationErrors. Messages name node classes and error types (identifiers
 * from the workflow), never ComfyUI's own text, which carries host paths and model file lists;
 * that text is kept in a non-enumerable `detail` for operators' logs.
 */
import { GenerationError } from '../generator.ts';
import type { PromptFailure } from './prompt-status.ts';

const IDENT = /[^A-Za-z0-9_.]/g;
const ident = (v: unknown) => String(v ?? '').replace(IDENT, '').slice(0, 64);

function withDetail(err: GenerationError, detail: unknown): GenerationError {
  Object.defineProperty(err, 'detail', { value: detail, enumerable: false });
  return err;
}

/**
 * POST /prompt refused the graph (400), or queued it with errors on some outputs (200 with
 * `node_errors`, when ComfyUI runs only the outputs that validated). Both are the workflow's or the
 * job's fault, so retrying cannot help.
 */
export function workflowRejected(error: unknown, nodeErrors: Record<string, unknown>): GenerationError {
  const reasons = new Set<string>();
  for (const entry of Object.values(nodeErrors)) {
    const e = (entry ?? {}) as { class_type?: unknown; errors?: Array<{ type?: unknown }> };
    const types = (Array.isArray(e.errors) ? e.errors : []).map((x) => ident(x?.type)).filter(Boolean);
    reasons.add(`${ident(e.class_type) || 'node'} (${[...new Set(types)].join(', ') || 'invalid'})`);
  }
  if (reasons.size === 0) reasons.add(ident((error as { type?: unknown } | undefined)?.type) || 'invalid_prompt');
  const list = [...reasons].slice(0, 5).join('; ');
  return withDetail(new GenerationError('invalid_input', `The GPU host rejected the workflow: ${list}.`, false), { error, nodeErrors });
}

/** An `execution_error`: bad input stays failed; anything else (out of memory, a CUDA fault) is retried. */
export function executionFailed(f: PromptFailure | undefined): GenerationError {
  const node = ident(f?.nodeType);
  const type = ident(f?.exceptionType);
  const short = type.split('.').pop() ?? '';
  const detail = { ...f };
  if (/^LoadImage/.test(node) || /UnidentifiedImageError|DecompressionBomb/.test(type)) {
    return withDetail(new GenerationError('invalid_input', 'The GPU host could not read the input image.', false), detail);
  }
  if (/OutOfMemory/i.test(type) || /out of memory/i.test(f?.exceptionMessage ?? '')) {
    return withDetail(new GenerationError('render_failed', 'The GPU ran out of memory while rendering; the task can be retried.', true), detail);
  }
  const where = node ? ` in ${node}` : '';
  const what = short ? ` (${short})` : '';
  return withDetail(new GenerationError('render_failed', `The model failed${where}${what}; the task can be retried.`, true), detail);
}

/** Interrupted on the host by someone other than this attempt (an operator, another client). */
export function interruptedOnHost(): GenerationError {
  return new GenerationError('backend_unavailable', 'The GPU host interrupted the task; it can be retried.', true);
}

/** The host no longer knows the prompt: it restarted, and ComfyUI keeps its queue in memory only. */
export function lostOnHost(): GenerationError {
  return new GenerationError('backend_unavailable', 'The GPU host lost the task (it restarted or crashed); it can be retried.', true);
}

export function noVideoOutput(): GenerationError {
  return new GenerationError('invalid_output', 'The ComfyUI workflow finished without saving a video (.mp4, .webm or .gif).', false);
}

export function deadlineExceeded(): GenerationError {
  return new GenerationError('deadline_exceeded', 'The GPU host did not finish the video in time; the task can be retried.', true);
}

/** The checkpoint write was refused: another attempt owns the task now, so this one must stop. */
export function leaseLost(): GenerationError {
  const err = new GenerationError('canceled', 'This attempt no longer owns the task.', false);
  Object.defineProperty(err, 'detail', { value: 'lease lost while saving the ComfyUI checkpoint', enumerable: false });
  return err;
}

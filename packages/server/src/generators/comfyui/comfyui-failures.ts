/**
 * ComfyUI's failures as TaskFailures. Messages name node classes and error types (identifiers
 * from the workflow), never ComfyUI's own text, which carries host paths and model file lists;
 * that text is kept in a non-enumerable `detail` for operators' logs.
 */
import { FAILURES, type TaskFailure } from '../../domain/task-failure.ts';
import type { PromptFailure } from './prompt-status.ts';

const IDENT = /[^A-Za-z0-9_.]/g;
const ident = (v: unknown) =>
  String(v ?? '')
    .replace(IDENT, '')
    .slice(0, 64);

function withDetail(err: TaskFailure, detail: unknown): TaskFailure {
  Object.defineProperty(err, 'detail', { value: detail, enumerable: false });
  return err;
}

/**
 * POST /prompt refused the graph (400), or queued it with errors on some outputs (200 with
 * `node_errors`, when ComfyUI runs only the outputs that validated). Both are the workflow's or the
 * job's fault, so retrying cannot help.
 */
export function workflowRejected(error: unknown, nodeErrors: Record<string, unknown>): TaskFailure {
  const reasons = new Set<string>();
  for (const entry of Object.values(nodeErrors)) {
    const e = (entry ?? {}) as { class_type?: unknown; errors?: Array<{ type?: unknown }> };
    const types = (Array.isArray(e.errors) ? e.errors : []).map((x) => ident(x?.type)).filter(Boolean);
    reasons.add(`${ident(e.class_type) || 'node'} (${[...new Set(types)].join(', ') || 'invalid'})`);
  }
  if (reasons.size === 0) reasons.add(ident((error as { type?: unknown } | undefined)?.type) || 'invalid_prompt');
  const list = [...reasons].slice(0, 5).join('; ');
  return withDetail(FAILURES.invalidInput(`The GPU host rejected the workflow: ${list}.`), { error, nodeErrors });
}

/**
 * Built-in exception types (ComfyUI names them without a module) a node raises on a workflow
 * mistake; RuntimeError is not among them, as CUDA faults are RuntimeErrors.
 */
const DETERMINISTIC = new Set([
  'ValueError',
  'TypeError',
  'KeyError',
  'AttributeError',
  'IndexError',
  'AssertionError',
  'NotImplementedError',
  'FileNotFoundError',
  'ZeroDivisionError',
  'NameError',
  'ImportError',
  'ModuleNotFoundError',
  'UnboundLocalError',
]);

/**
 * An `execution_error`: bad input and workflow mistakes stay failed; anything else (out of memory, a CUDA fault) is
 * retried.
 */
export function executionFailed(f: PromptFailure | undefined): TaskFailure {
  const node = ident(f?.nodeType);
  const type = ident(f?.exceptionType);
  const short = type.split('.').pop() ?? '';
  const detail = { ...f };
  if (/^LoadImage/.test(node) || /UnidentifiedImageError|DecompressionBomb/.test(type)) {
    return withDetail(FAILURES.invalidInput('The GPU host could not read the input image.'), detail);
  }
  if (/OutOfMemory/i.test(type) || /out of memory/i.test(f?.exceptionMessage ?? '')) {
    return withDetail(
      FAILURES.renderFailed('The GPU ran out of memory while rendering; the task can be retried.'),
      detail,
    );
  }
  const where = node ? ` in ${node}` : '';
  const what = short ? ` (${short})` : '';
  // Python's own errors from a node's code are the workflow's mistake: they repeat on every run.
  if (DETERMINISTIC.has(type)) {
    return withDetail(
      FAILURES.workflowFailed(
        `A node of the workflow failed${where}${what}; it fails the same way on every run, so it is not retried.`,
      ),
      detail,
    );
  }
  return withDetail(FAILURES.renderFailed(`The model failed${where}${what}; the task can be retried.`), detail);
}

/** Interrupted on the host by someone other than this attempt (an operator, another client). */
export function interruptedOnHost(): TaskFailure {
  return FAILURES.backendUnavailable('The GPU host interrupted the task; it can be retried.');
}

/** The host no longer knows the prompt: it restarted, and ComfyUI keeps its queue in memory only. */
export function lostOnHost(): TaskFailure {
  return FAILURES.backendUnavailable('The GPU host lost the task (it restarted or crashed); it can be retried.');
}

export function noVideoOutput(): TaskFailure {
  return FAILURES.invalidOutput('The ComfyUI workflow finished without saving a video (.mp4, .webm or .gif).');
}

export function deadlineExceeded(): TaskFailure {
  return FAILURES.deadlineExceeded('The GPU host did not finish the video in time; the task can be retried.');
}

/** The checkpoint write was refused: another attempt owns the task now, so this one must stop. */
export function leaseLost(): TaskFailure {
  const err = FAILURES.leaseLost();
  Object.defineProperty(err, 'detail', { value: 'lease lost while saving the ComfyUI checkpoint', enumerable: false });
  return err;
}

/**
 * Workflow templates: ComfyUI "API format" graphs (what "Export (API)" saves) with placeholders such
 * as "{{prompt}}" in input values. Values are substituted into the parsed graph, never spliced into
 * JSON text, so a prompt full of quotes and braces cannot change the graph's shape.
 */

/** One node of an API-format graph. Links are `[nodeId, outputIndex]` pairs. */
export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

export type WorkflowGraph = Record<string, WorkflowNode>;

export interface WorkflowValues {
  prompt: string;
  negative_prompt: string;
  /** Name of the uploaded first frame, as LoadImage wants it; absent for text-to-video. */
  image?: string;
  width: number;
  height: number;
  /** Frames to render. */
  length: number;
  fps: number;
  seed: number;
  /** The ComfyUI prompt id, handy in `filename_prefix` to tell outputs apart on the host. */
  prompt_id: string;
  /** Name of the uploaded last frame. */
  last_frame?: string;
  /**
   * The numbered slots (workflow-slots.ts): `keyframe_1` (an uploaded name), `keyframe_1_frame`
   * (its frame index), `reference_image_1`, …
   */
  slots?: Record<string, string | number>;
}

export const PLACEHOLDERS: readonly (keyof WorkflowValues)[] = [
  'prompt',
  'negative_prompt',
  'image',
  'width',
  'height',
  'length',
  'fps',
  'seed',
  'prompt_id',
  'last_frame',
];
/** The numbered placeholders: one per keyframe or reference image a workflow has room for. */
export const SLOT = /^(keyframe_[1-9]\d?(?:_frame)?|reference_image_[1-9]\d?)$/;
const NUMERIC = new Set<string>(['width', 'height', 'length', 'fps', 'seed']);
const isNumeric = (key: string) => NUMERIC.has(key) || /^keyframe_\d+_frame$/.test(key);
const WHOLE = /^\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}$/;
const ANY = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;

/**
 * Checks that `raw` is an API-format graph whose placeholders are all known. `name` only labels
 * the error, which is meant for the operator at start-up, not for callers.
 */
export function parseWorkflow(raw: unknown, name: string): WorkflowGraph {
  const fail = (what: string): never => {
    throw new Error(`ComfyUI workflow ${name}: ${what}`);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object of nodes');
  if (Array.isArray((raw as { nodes?: unknown }).nodes)) {
    fail('this is the editor format; export the workflow with "Export (API)" instead');
  }
  const graph = raw as Record<string, unknown>;
  if (Object.keys(graph).length === 0) fail('has no nodes');
  for (const [id, node] of Object.entries(graph)) {
    const n = node as Partial<WorkflowNode> | null;
    if (!n || typeof n !== 'object' || typeof n.class_type !== 'string' || !n.inputs || typeof n.inputs !== 'object') {
      fail(`node "${id}" needs a "class_type" string and an "inputs" object`);
    }
  }
  for (const key of placeholdersIn(graph as WorkflowGraph)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(key) && !SLOT.test(key)) fail(`unknown placeholder {{${key}}}`);
  }
  return graph as WorkflowGraph;
}

/** Every placeholder name used anywhere in the graph's input values. */
export function placeholdersIn(graph: WorkflowGraph): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') for (const m of value.matchAll(ANY)) found.add(m[1]);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  for (const node of Object.values(graph)) visit(node.inputs);
  return found;
}

/**
 * A copy of the graph with placeholders replaced. A string that is exactly one placeholder becomes
 * the typed value (a number for sizes, fps and seed), because ComfyUI refuses "832" for an INT
 * input; a placeholder inside a longer string is interpolated as text.
 */
export function fillWorkflow(graph: WorkflowGraph, values: WorkflowValues): WorkflowGraph {
  const lookup = (key: string): string | number => {
    const value = SLOT.test(key) ? values.slots?.[key] : (values[key as keyof WorkflowValues] as string | number);
    if (value === undefined) throw new Error(`the workflow needs {{${key}}}, which this job does not have`);
    return value;
  };
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value);
      if (whole) {
        const v = lookup(whole[1]);
        return isNumeric(whole[1]) ? Number(v) : String(v);
      }
      return value.replace(ANY, (_, key: string) => String(lookup(key)));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    }
    return value;
  };
  const out: WorkflowGraph = {};
  for (const [id, node] of Object.entries(graph)) {
    out[id] = { ...node, inputs: fill(node.inputs) as Record<string, unknown> };
  }
  return out;
}

/** Relative weight of a node in the progress bar: samplers are where a video model spends its time. */
export function progressWeight(classType: string): number {
  if (/sampler/i.test(classType)) return 20;
  if (/vaedecode|upscale|interpolat/i.test(classType)) return 3;
  if (/save|combine|createvideo/i.test(classType)) return 2;
  return 1;
}

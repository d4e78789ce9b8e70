/**
 * Workflows with room for a varying number of inputs. A workflow for keyframes or reference images
 * has one numbered slot per input it can take (`{{keyframe_1}}` … `{{keyframe_4}}`, each with its
 * `{{keyframe_1_frame}}`; `{{reference_image_1}}` …), and a job fills as many as it has. The nodes
 * of the slots it leaves empty are taken out before the graph is sent, the way ComfyUI's own
 * "bypass" takes a node out: each link to a node that is out goes where the node's `_meta.bypass`
 * says (`{"0": "positive"}`: output 0 passes the node's own `positive` input through), and an input
 * whose link leads nowhere is left out, as an unconnected optional input is (a required one makes
 * ComfyUI refuse the prompt, which is the operator's workflow to fix).
 */
import { placeholdersIn, SLOT, type WorkflowGraph, type WorkflowNode } from './workflow-template.ts';

/** Placeholders a multi-input workflow may leave unfilled: its first and last frames and its slots. */
const OPTIONAL = (key: string) => key === 'image' || key === 'last_frame' || SLOT.test(key);

type Link = [string, number];
const isLink = (v: unknown): v is Link =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && Number.isInteger(v[1]);

/** How many of the numbered slots `{{<name>_1}}`, `{{<name>_2}}`, … the graph has, counted without gaps. */
export function slotCount(graph: WorkflowGraph, name: 'keyframe' | 'reference_image'): number {
  const used = placeholdersIn(graph);
  let n = 0;
  while (used.has(`${name}_${n + 1}`)) n++;
  return n;
}

/** The graph without the nodes of the placeholders `present` does not name. */
export function pruneEmptySlots(graph: WorkflowGraph, present: ReadonlySet<string>): WorkflowGraph {
  const out = new Set<string>();
  for (const [id, node] of Object.entries(graph))
    if ([...placeholdersIn({ [id]: node })].some((key) => OPTIONAL(key) && !present.has(key))) out.add(id);
  const resolve = (link: Link, depth = 0): Link | undefined => {
    if (!out.has(link[0])) return link;
    const through = bypassOf(graph[link[0]])[String(link[1])];
    const next = through === undefined ? undefined : graph[link[0]].inputs[through];
    return depth < 64 && isLink(next) ? resolve(next, depth + 1) : undefined;
  };
  // A node with a bypass that lost an input goes out too (a batch that lost one of its images);
  // links that pass through nodes already out are not lost.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, node] of Object.entries(graph)) {
      if (out.has(id) || !node._meta || !('bypass' in node._meta)) continue;
      if (Object.values(node.inputs).some((v) => isLink(v) && resolve(v) === undefined)) {
        out.add(id);
        changed = true;
      }
    }
  }
  const kept: WorkflowGraph = {};
  for (const [id, node] of Object.entries(graph)) {
    if (out.has(id)) continue;
    const inputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(node.inputs)) {
      const target = isLink(value) ? resolve(value) : value;
      if (target !== undefined) inputs[name] = target;
    }
    kept[id] = { ...node, inputs };
  }
  return kept;
}

/** A node's pass-through map; `_meta` is ours to read, ComfyUI ignores what it holds besides the title. */
function bypassOf(node: WorkflowNode): Record<string, string> {
  const b = (node._meta as { bypass?: unknown } | undefined)?.bypass;
  return b && typeof b === 'object' ? (b as Record<string, string>) : {};
}

/**
 * Which of a model's workflows renders a job, and what the model takes as a result. The roles a
 * job brings decide, most specific first: keyframes, then reference images, then a last frame, then
 * a first frame, then none. The workflow picked must have a place for every input the job brings;
 * an input it has no place for is refused, never dropped (invariant 4, docs/architecture.md): the
 * model's `inputs` (computed here from its workflows) keep such jobs out at submit already.
 */
import { FAILURES } from '../../domain/task-failure.ts';
import {
  DECLARATION_KEY,
  type InputDeclarationKey,
  type InputRole,
  type ModelInputs,
} from '../../domain/task-inputs.ts';
import { jobInputs, type GenerationJob } from '../generator.ts';
import type { ComfyUiWorkflows } from './comfyui-workflows.ts';
import { slotCount } from './workflow-slots.ts';
import { placeholdersIn, type WorkflowGraph } from './workflow-template.ts';

type Counts = Partial<Record<InputRole, number>>;
/** Slots are numbered 1 to 99 (workflow-template.ts SLOT). */
const MAX_SLOTS = 99;

/** The workflow for a job with these inputs, in order of preference; the first that exists is used. */
function candidates(counts: Counts, w: ComfyUiWorkflows): Array<WorkflowGraph | undefined> {
  if (counts.keyframe) return [w.keyframesToVideo];
  if (counts.reference_image) return [w.referencesToVideo];
  if (counts.last_frame) return [w.firstLastToVideo, w.keyframesToVideo];
  if (counts.first_frame) return [w.imageToVideo, w.firstLastToVideo, w.keyframesToVideo, w.referencesToVideo];
  return [w.textToVideo];
}

/** How many of each role a workflow has room for. */
function room(graph: WorkflowGraph): Record<InputRole, number> {
  const used = placeholdersIn(graph);
  return {
    first_frame: used.has('image') ? 1 : 0,
    last_frame: used.has('last_frame') ? 1 : 0,
    keyframe: slotCount(graph, 'keyframe'),
    reference_image: slotCount(graph, 'reference_image'),
    reference_audio: 0,
    reference_video: 0,
  };
}

function choose(counts: Counts, w: ComfyUiWorkflows): WorkflowGraph | undefined {
  const graph = candidates(counts, w).find((g) => g !== undefined);
  if (!graph) return undefined;
  const fits = room(graph);
  return Object.entries(counts).every(([role, n]) => (n ?? 0) <= fits[role as InputRole]) ? graph : undefined;
}

function countsOf(job: Pick<GenerationJob, 'images' | 'inputs'>): Counts {
  const counts: Counts = {};
  for (const role of Object.keys(DECLARATION_KEY) as InputRole[]) {
    const n = jobInputs(job, role).length;
    if (n > 0) counts[role] = n;
  }
  return counts;
}

export function pickWorkflow(job: Pick<GenerationJob, 'images' | 'inputs'>, w: ComfyUiWorkflows): WorkflowGraph {
  const counts = countsOf(job);
  const graph = choose(counts, w);
  if (graph) return graph;
  const roles = Object.keys(counts).join(', ');
  if (roles === '') throw FAILURES.invalidInput('This model needs a first-frame image.');
  if (roles === 'first_frame') throw FAILURES.invalidInput('This model cannot start from an image.');
  throw FAILURES.invalidInput(`This model cannot take these inputs together: ${roles}.`);
}

/**
 * What a model with these workflows takes, as `/v1/models` shows it: the most of each role one of
 * its workflows has room for, and as `exclusive` every pair of roles no single workflow takes
 * together (the LTX keyframes workflow has no last frame; a Wan first-last workflow no keyframes).
 */
export function workflowInputs(w: ComfyUiWorkflows): ModelInputs {
  const roles: InputRole[] = ['first_frame', 'last_frame', 'keyframe', 'reference_image'];
  const most = (role: InputRole) => {
    let n = 0;
    while (n < MAX_SLOTS && choose({ [role]: n + 1 }, w)) n++;
    return n;
  };
  const taken = roles.filter((role) => most(role) > 0);
  const exclusive: InputDeclarationKey[][] = [];
  for (const [i, a] of taken.entries())
    for (const b of taken.slice(i + 1))
      if (!choose({ [a]: 1, [b]: 1 }, w)) exclusive.push([DECLARATION_KEY[a], DECLARATION_KEY[b]]);
  return {
    first_frame: most('first_frame') > 0,
    last_frame: most('last_frame') > 0,
    keyframes: most('keyframe'),
    reference_images: most('reference_image'),
    reference_audios: 0,
    reference_videos: 0,
    exclusive,
  };
}

import { InvalidField } from '../../errors.ts';
import {
  DECLARATION_KEY,
  type InputDeclarationKey,
  type InputRole,
  type ModelInputs,
} from '../../domain/task-inputs.ts';
import type { InputRequest } from './media-inputs.ts';
import { frameShowing } from '../../domain/anchor-frames.ts';

/** How a message names each role, one and several. */
const NOUNS: Record<InputDeclarationKey, [string, string]> = {
  first_frame: ['a first frame', 'first frames'],
  last_frame: ['a last frame', 'last frames'],
  keyframes: ['a keyframe', 'keyframes'],
  reference_images: ['a reference image', 'reference images'],
  reference_audios: ['a reference audio', 'reference audios'],
  reference_videos: ['a reference video', 'reference videos'],
};

/** What a model takes, in words: "a first frame, a last frame and up to 7 reference images". */
export function describeInputs(inputs: ModelInputs): string {
  const parts: string[] = [];
  for (const key of Object.keys(NOUNS) as InputDeclarationKey[]) {
    const most = inputs[key];
    if (most === true) parts.push(NOUNS[key][0]);
    else if (typeof most === 'number' && most > 0)
      parts.push(most === 1 ? NOUNS[key][0] : `up to ${most} ${NOUNS[key][1]}`);
  }
  if (parts.length === 0) return 'no inputs besides the prompt';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

const most = (inputs: ModelInputs, key: InputDeclarationKey): number => {
  const value = inputs[key];
  return value === true ? 1 : value === false ? 0 : value;
};

/**
 * The submit rules of a generation's inputs, checked before anything is fetched, stored or held
 * (invariant 4, docs/architecture.md): every input is one the model takes, within its count and
 * its exclusive groups; keyframes fall inside the video, each on a frame of its own at the model's
 * frame rate; reference audio comes only with sound.
 * Fields are named by their place in the list (`inputs[2]`) or by role (`inputs.reference_audio`).
 */
export function checkInputs(
  model: { id: string; inputs: ModelInputs },
  requests: readonly InputRequest[],
  task: { duration: number; audio: boolean; fps: number },
): void {
  const offers = describeInputs(model.inputs);
  const counts = new Map<InputDeclarationKey, number>();
  const firstOf = new Map<InputDeclarationKey, number>();
  for (const [index, request] of requests.entries()) {
    const key = DECLARATION_KEY[request.role];
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (!firstOf.has(key)) firstOf.set(key, index);
    const field = `inputs[${index}]`;
    const limit = most(model.inputs, key);
    if (limit === 0) {
      throw new InvalidField(
        field,
        'unsupported_input',
        (name) => `\`${name}\` is ${NOUNS[key][0]}, which model '${model.id}' does not take; it takes ${offers}.`,
      );
    }
    if (count > limit) {
      throw new InvalidField(
        field,
        'unsupported_input',
        (name) =>
          `\`${name}\` is one ${NOUNS[key][0].replace(/^an? /, '')} too many: model '${model.id}' takes ${offers}.`,
      );
    }
    checkOne(model, request, field, task.duration);
  }
  checkAnchorFrames(requests, task);
  for (const group of model.inputs.exclusive) {
    const used = group.filter((key) => counts.has(key));
    if (used.length < 2) continue;
    const second = Math.max(...used.map((key) => firstOf.get(key) ?? 0));
    const [a, b] = used.map((key) => NOUNS[key][1]);
    throw new InvalidField(
      `inputs[${second}]`,
      'unsupported_input',
      (name) => `\`${name}\`: model '${model.id}' takes ${a} or ${b}, never both in one request.`,
    );
  }
  if (counts.has('reference_audios') && !task.audio) {
    throw new InvalidField(
      'inputs.reference_audio',
      'unsupported_input',
      (name) =>
        `\`${name}\` is the soundtrack of a video with sound, but this request makes a silent one: ask for sound ` +
        `(\`generate_audio: true\`) or leave the reference audio out.`,
    );
  }
}

function checkOne(model: { id: string }, request: InputRequest, field: string, duration: number): void {
  if (request.voiceId !== undefined) {
    throw new InvalidField(
      `${field}.voiceId`,
      'unsupported_input',
      (name) => `\`${name}\`: model '${model.id}' declares no voices; send the reference audio as a URL or a file id.`,
    );
  }
  const sources = [request.url, request.fileId].filter((s) => s !== undefined).length;
  if (sources !== 1) {
    const code =
      request.role === 'reference_audio'
        ? 'invalid_audio'
        : request.role === 'reference_video'
          ? 'invalid_video'
          : 'invalid_image';
    throw new InvalidField(field, code, (name) => `\`${name}\` must have exactly one source: a URL or a file id.`);
  }
  const at = request.atSeconds;
  if (request.role === 'keyframe' && (at === undefined || !(at > 0 && at < duration))) {
    throw new InvalidField(
      `${field}.atSeconds`,
      'invalid_keyframe',
      (name) => `\`${name}\` must be a time in seconds after 0 and before the video's end (${duration} s).`,
    );
  }
}

/**
 * Each anchor (the first frame, the keyframes, the last frame) on a frame of its own: two times
 * that round to one frame at the model's rate would pass here and fail in the renderer, after the
 * hold. The keyframe named is the later one in the request; the frames hold their ends.
 */
function checkAnchorFrames(requests: readonly InputRequest[], task: { duration: number; fps: number }): void {
  const taken = new Map<number, string>();
  const frameOf = (seconds: number) => frameShowing(seconds, task.duration, task.fps);
  // Frame 0 is the first frame's, or without one the prompt's scene that opens the video.
  taken.set(frameOf(0), hasRole(requests, 'first_frame') ? 'the first frame' : "the prompt's opening scene");
  if (hasRole(requests, 'last_frame')) taken.set(frameOf(task.duration), 'the last frame');
  for (const [index, request] of requests.entries()) {
    if (request.role !== 'keyframe' || request.atSeconds === undefined) continue;
    const at = request.atSeconds;
    const frame = frameOf(at);
    const other = taken.get(frame);
    if (other !== undefined) {
      throw new InvalidField(
        `inputs[${index}]`,
        'invalid_keyframe',
        (name) =>
          `\`${name}\` at ${at} s falls on frame ${frame} at ${task.fps} fps, which already shows ${other}: ` +
          `each keyframe needs a frame of its own (about ${(1 / task.fps).toFixed(3)} s apart).`,
      );
    }
    taken.set(frame, `the keyframe at ${at} s`);
  }
}

/** Whether the requests include a role. */
export function hasRole(requests: readonly InputRequest[], role: InputRole): boolean {
  return requests.some((r) => r.role === role);
}

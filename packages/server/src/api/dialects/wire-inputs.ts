import type { InputRequest } from '../../engine/task-service.ts';
import type { InputRole } from '../../domain/task-inputs.ts';
import { InvalidRequest, type ApiErrorCode } from '../../errors.ts';

/**
 * One input as a dialect read it from its body: the request in domain words, and the wire names
 * of the field it came from, so that an error the engine names `inputs[2].url` is answered with
 * the name the caller used (`keyframes[0].image.url`, `frame_images[1]`, `images[3]`).
 */
export interface WireInput {
  request: InputRequest;
  /** The element's own name (`last_frame`, `keyframes[2]`, `input_references[0]`). */
  field: string;
  /** Names of its parts, where they differ from `field`. */
  parts?: { url?: string; fileId?: string; atSeconds?: string; voiceId?: string };
}

/** A dialect's inputs: how it reads them from a body, and the name of each role's list in its wire. */
export interface WireInputs<Body> {
  read(body: Body): WireInput[];
  /** The field a role's inputs are listed in (`reference_audios`), for errors about them together. */
  lists: Partial<Record<InputRole, string>>;
}

/** The domain requests of a body's inputs. */
export function inputRequests<Body>(wire: WireInputs<Body>, body: Body): InputRequest[] {
  return wire.read(body).map((input) => input.request);
}

/**
 * The wire name of an engine field about inputs (`inputs[2]`, `inputs[2].url`, `inputs.reference_audio`),
 * or undefined for any other field (or a body that no longer reads).
 */
export function inputFieldName<Body>(wire: WireInputs<Body>, field: string, body: unknown): string | undefined {
  const list = /^inputs\.(\w+)$/.exec(field);
  if (list) return wire.lists[list[1] as InputRole];
  const match = /^inputs\[(\d+)\](?:\.(url|fileId|atSeconds|voiceId))?$/.exec(field);
  if (!match) return undefined;
  let inputs: WireInput[];
  try {
    inputs = wire.read(body as Body);
  } catch {
    return undefined;
  }
  const input = inputs[Number(match[1])];
  if (!input) return undefined;
  const part = match[2] as keyof NonNullable<WireInput['parts']> | undefined;
  return (part && input.parts?.[part]) ?? input.field;
}

/** `{url}` or `{file_id}`, exactly one, as family A's objects hold an input. */
export function oneSource(
  value: { url?: string; file_id?: string },
  field: string,
  code: ApiErrorCode = 'invalid_image',
): { url?: string; fileId?: string } {
  if ((value.url !== undefined) === (value.file_id !== undefined)) {
    throw new InvalidRequest(code, `\`${field}\` must have exactly one of \`url\` or \`file_id\`.`, field);
  }
  return value.url !== undefined ? { url: value.url } : { fileId: value.file_id };
}

/** The usual part names of an object input: `<field>.url`, `<field>.file_id`. */
export function objectParts(field: string): WireInput['parts'] {
  return { url: `${field}.url`, fileId: `${field}.file_id` };
}

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { VidgenClient } from '../vidgen-client.ts';
import type { FamilyAImage } from '@vidgen/protocol';

export type ImageMime = 'image/jpeg' | 'image/png';

export interface LocalImage {
  bytes: Uint8Array;
  mime: ImageMime;
  filename: string;
}

/** The service accepts only JPEG and PNG data URIs (spec 2.4); the bytes decide, not the file name. */
export function sniffImage(bytes: Uint8Array): ImageMime | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'image/png';
  return undefined;
}

export async function readLocalImage(path: string): Promise<LocalImage> {
  const bytes = new Uint8Array(await readFile(path));
  const mime = sniffImage(bytes);
  if (!mime) throw new Error(`${path} is not a JPEG or PNG image.`);
  return { bytes, mime, filename: basename(path) };
}

export function toDataUri(image: LocalImage): string {
  return `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}`;
}

/** Remote references (http/https URLs and data URIs) go as they are; anything else is a local path. */
export function isRemoteImage(ref: string): boolean {
  return /^(https?:\/\/|data:)/i.test(ref);
}

/** A family B `image`: a URL, or a local file as a data URI. */
export async function familyBImage(ref: string): Promise<string> {
  return isRemoteImage(ref) ? ref : toDataUri(await readLocalImage(ref));
}

/** A family A first frame: `{url}`, or a local file uploaded through /v1/files and passed as `{file_id}`. */
export async function familyAImage(client: VidgenClient, ref: string): Promise<FamilyAImage> {
  if (isRemoteImage(ref)) return { url: ref };
  const image = await readLocalImage(ref);
  const file = await client.files.create({
    file: new Blob([image.bytes as BlobPart], { type: image.mime }),
    filename: image.filename,
    purpose: 'vision',
  });
  return { file_id: file.id };
}

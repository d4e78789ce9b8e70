import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { VidgenClient } from '../vidgen-client.ts';
import { isRemoteImage } from './local-image.ts';

/**
 * A family A input that is not a picture (a reference audio): a URL or data URI as `{url}`, or a
 * local file uploaded through /v1/files as `{file_id}`. The server tells the medium from the bytes
 * (WAV, MP3, AAC/M4A; at most 15 s and 10 MB), so the file goes as it is, named as it is named here.
 */
export async function familyAMedia(client: VidgenClient, ref: string): Promise<{ url: string } | { file_id: string }> {
  if (isRemoteImage(ref)) return { url: ref };
  const bytes = new Uint8Array(await readFile(ref));
  const file = await client.files.create({ file: new Blob([bytes as BlobPart]), filename: basename(ref) });
  return { file_id: file.id };
}

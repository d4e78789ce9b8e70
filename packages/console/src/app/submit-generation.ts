import type { FamilyATask, FamilyBTaskObject, ModelObject, VidgenClient } from '@vidgen/client';
import type { FormValues } from './form-rules.ts';
import { toTaskItem, type TaskItem } from './task-item.ts';

/**
 * Sends one generation through the SDK (which adds the Idempotency-Key and never resubmits
 * blindly). Family A's images (first and last frame, references) are uploaded to /v1/files and
 * referenced by id; family B takes inline images, so its files travel as data URIs.
 */
export async function submitGeneration(client: VidgenClient, model: ModelObject, v: FormValues): Promise<TaskItem> {
  const prompt = v.prompt.trim();
  // Chosen here, not by the SDK, so the row can find the task's listing entry (and its times) once it ends.
  const idempotencyKey = crypto.randomUUID();
  if (model.family === 'A') {
    const upload = (file: File) => uploadImage(client, file);
    const image = await oneImage(v.imageUrls, v.imageFiles, upload);
    const lastFrame = await oneImage(v.lastFrameUrls, v.lastFrameFiles, upload);
    const references = [
      ...v.referenceUrls.map((url) => ({ url })),
      ...(await Promise.all(v.referenceFiles.map(upload))),
    ];
    const { request_id } = await client.videos.generate(
      {
        model: model.id,
        prompt,
        image,
        ...(lastFrame ? { last_frame: lastFrame } : {}),
        ...(references.length ? { reference_images: references } : {}),
        duration: v.duration ?? 5,
        aspect_ratio: v.ratio,
        seed: v.seed,
        ...(v.sound !== undefined ? { generate_audio: v.sound } : {}),
      },
      { idempotencyKey },
    );
    const pending: FamilyATask = { request_id, status: 'pending', model: model.id, progress: 0 };
    return toTaskItem('A', { ...pending, idempotency_key: idempotencyKey });
  }
  const refs = [...v.imageUrls, ...(await Promise.all(v.imageFiles.map(readAsDataUri)))];
  const images = refs.length === 1 ? { image: refs[0] } : refs.length > 1 ? { images: refs } : {};
  const last = v.lastFrameUrls[0] ?? (v.lastFrameFiles[0] && (await readAsDataUri(v.lastFrameFiles[0])));
  const created = await client.videoGenerations.create(
    {
      model: model.id,
      prompt,
      ratio: v.ratio,
      seed: v.seed,
      ...(v.sound !== undefined ? { generate_audio: v.sound } : {}),
      ...images,
      ...(last ? { last_frame: last } : {}),
    },
    { idempotencyKey },
  );
  // What the list shows until the first poll: a create answers before any work started.
  const queued: FamilyBTaskObject = {
    task_id: created.task_id,
    status: 'queued',
    seconds: created.seconds,
    model: model.id,
    progress: 0,
  };
  return toTaskItem('B', { ...queued, idempotency_key: idempotencyKey });
}

/** One image given as a URL or a file (the form allows one of the two): `{url}`, or an upload's `{file_id}`. */
async function oneImage(
  urls: string[],
  files: File[],
  upload: (file: File) => Promise<{ file_id: string }>,
): Promise<{ url: string } | { file_id: string } | undefined> {
  if (urls[0]) return { url: urls[0] };
  return files[0] ? upload(files[0]) : undefined;
}

async function uploadImage(client: VidgenClient, file: File): Promise<{ file_id: string }> {
  const uploaded = await client.files.create({ file, filename: file.name, purpose: 'vision' });
  return { file_id: uploaded.id };
}

/** `data:image/png;base64,…` — FileReader writes exactly the prefix the service requires. */
export function readAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error(`Could not read '${file.name}'.`));
    reader.readAsDataURL(file);
  });
}

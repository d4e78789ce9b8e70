import type { FamilyATask, FamilyBTaskObject, ModelObject, VidgenClient } from '@vidgen/client';
import type { FormValues } from './form-rules.ts';
import { toTaskItem, type TaskItem } from './task-item.ts';

/**
 * Sends one generation through the SDK (which adds the Idempotency-Key and never resubmits
 * blindly). Family A's first frame is uploaded to /v1/files and referenced by id; family B
 * takes inline images, so its files travel as data URIs.
 */
export async function submitGeneration(client: VidgenClient, model: ModelObject, v: FormValues): Promise<TaskItem> {
  const prompt = v.prompt.trim();
  // Chosen here, not by the SDK, so the row can find the task's listing entry (and its times) once it ends.
  const idempotencyKey = crypto.randomUUID();
  if (model.family === 'A') {
    const image = await firstFrame(client, v);
    const { request_id } = await client.videos.generate(
      {
        model: model.id,
        prompt,
        image,
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
  const created = await client.videoGenerations.create(
    {
      model: model.id,
      prompt,
      ratio: v.ratio,
      seed: v.seed,
      ...(v.sound !== undefined ? { generate_audio: v.sound } : {}),
      ...images,
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

async function firstFrame(
  client: VidgenClient,
  v: FormValues,
): Promise<{ url: string } | { file_id: string } | undefined> {
  if (v.imageUrls[0]) return { url: v.imageUrls[0] };
  const file = v.imageFiles[0];
  if (!file) return undefined;
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

import type OpenAI from 'openai';

/** A batch's final statuses (OpenAI's spelling). */
export const BATCH_ENDED = ['completed', 'failed', 'expired', 'cancelled'];

/** One input line of a family B batch: a `model` video of the prompt `customId`. */
export const familyBLine = (customId: string, model: string) =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/video/generations',
    body: { model, prompt: customId },
  });

/** The batch as soon as `done` holds for it, read through the SDK every 100 ms. */
export async function untilBatch(client: OpenAI, id: string, done: (b: OpenAI.Batch) => boolean) {
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (done(batch)) return batch;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The batch once it has ended. */
export const untilBatchEnded = (client: OpenAI, id: string) =>
  untilBatch(client, id, (b) => BATCH_ENDED.includes(b.status));

/** An output or error file's lines, parsed (none for a file the batch did not make). */
export async function batchFileLines(client: OpenAI, fileId: string | null | undefined): Promise<any[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

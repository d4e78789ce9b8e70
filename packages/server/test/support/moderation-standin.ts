/**
 * A stand-in for OpenAI's moderation endpoint (POST /v1/moderations), written from OpenAI's API
 * reference and openai-node `src/resources/moderations.ts`: the request is `{input, model?}` (input a
 * string or a list of strings) with `Authorization: Bearer …`; the answer is `{id, model, results}`,
 * one result per input with `flagged`, `categories` (name → boolean) and `category_scores` (name →
 * number). A wrong key is 401 with OpenAI's error envelope. Here a result is flagged when the input
 * contains one of `flagWords`, in the `violence` category.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const CATEGORIES = ['harassment', 'hate', 'self-harm', 'sexual', 'violence'];

export interface ModerationStandin {
  url: string;
  /** The inputs it was asked about, in order. */
  inputs: string[];
  close(): Promise<void>;
}

export async function startModerationStandin(options: {
  key: string;
  flagWords: string[];
}): Promise<ModerationStandin> {
  const inputs: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v1/moderations')
        return send(404, { error: { message: 'Not found', type: 'invalid_request_error', code: null } });
      if (req.headers.authorization !== `Bearer ${options.key}`)
        return send(401, {
          error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
        });
      let body: { input?: unknown; model?: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'We could not parse the JSON body.', type: 'invalid_request_error' } });
      }
      const list = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : undefined;
      if (!list || list.some((i) => typeof i !== 'string'))
        return send(400, { error: { message: "'input' is a required property", type: 'invalid_request_error' } });
      inputs.push(...(list as string[]));
      const results = (list as string[]).map((text) => {
        const violent = options.flagWords.some((w) => text.toLowerCase().includes(w));
        const categories = Object.fromEntries(CATEGORIES.map((c) => [c, c === 'violence' && violent]));
        const scores = Object.fromEntries(CATEGORIES.map((c) => [c, c === 'violence' && violent ? 0.97 : 0.001]));
        return { flagged: violent, categories, category_scores: scores };
      });
      send(200, { id: `modr-${inputs.length}`, model: body.model ?? 'omni-moderation-latest', results });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    inputs,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

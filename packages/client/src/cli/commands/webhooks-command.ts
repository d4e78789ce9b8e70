import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../webhooks/verify-webhook.ts';
import { numberFlag } from '../cli-args.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError } from '../exit-codes.ts';

/**
 * `vidgen webhooks listen --forward-to URL`: local development without a public address. It
 * listens on loopback, registers that loopback URL as a temporary endpoint (the server must
 * allow private URLs: VIDGEN_ALLOW_PRIVATE_URLS), verifies each delivery with the endpoint's
 * secret and forwards it, headers and body unchanged, to --forward-to; the server is answered
 * with the forward's status, so retries behave as they will in production. Ctrl-C deletes the
 * endpoint.
 */
export async function webhooksCommand(ctx: CliContext): Promise<number> {
  const sub = ctx.positionals[0];
  if (sub !== 'listen')
    throw new UsageError(`unknown webhooks command '${sub ?? ''}'; use \`vidgen webhooks listen --forward-to URL\`.`);
  const target = ctx.flags['forward-to'];
  if (!target || !/^https?:\/\//.test(target)) throw new UsageError('--forward-to <http(s) URL> is required.');
  const replay = replayRange(ctx);
  let secret = '';
  const server = createServer((req, res) => void forward(ctx, target, () => secret, req, res));
  await new Promise<void>((resolve) => server.listen(numberFlag(ctx.flags, 'port') ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const events = ctx.flags.events
      ?.split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const endpoint = await ctx.client.webhooks.create({ url, ...(events ? { events } : {}) }, { signal: ctx.signal });
    secret = endpoint.secret;
    const replayed = replay && (await ctx.client.webhooks.recover(endpoint.id, replay, { signal: ctx.signal })).queued;
    ctx.result(
      { endpoint_id: endpoint.id, url, forward_to: target, secret, ...(replay ? { replayed } : {}) },
      `Listening on ${url} (endpoint ${endpoint.id}), forwarding verified events to ${target}.\n` +
        `Signing secret (for your receiver's verifyWebhook): ${secret}` +
        (replay ? `\nReplaying ${replayed} earlier event(s).` : '') +
        '\nCtrl-C to stop; the endpoint is deleted then.',
    );
    try {
      await new Promise<void>((resolve) =>
        ctx.signal.aborted ? resolve() : ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    } finally {
      await ctx.client.webhooks
        .delete(endpoint.id)
        .catch(() =>
          ctx.note(
            `vidgen: could not delete endpoint ${endpoint.id}; delete it with DELETE /v1/webhooks/${endpoint.id}.`,
          ),
        );
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return EXIT.ok;
}

/**
 * `--since`/`--until`: the range of past events to replay to the new endpoint (the server's
 * recover). Relative (`90s`, `30m`, `2h`, `7d`: that long ago), Unix seconds or RFC 3339.
 */
function replayRange(ctx: CliContext): { since: number | string; until?: number | string } | undefined {
  const { since, until } = ctx.flags;
  if (since === undefined) {
    if (until !== undefined) throw new UsageError('--until needs --since.');
    return undefined;
  }
  return { since: timeFlag(since, '--since'), ...(until === undefined ? {} : { until: timeFlag(until, '--until') }) };
}

function timeFlag(value: string, flag: string): number | string {
  const relative = /^(\d+)([smhd])$/.exec(value);
  if (relative) {
    const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[relative[2] as 's' | 'm' | 'h' | 'd'];
    return Math.floor(Date.now() / 1000) - Number(relative[1]) * unit;
  }
  if (/^\d+$/.test(value)) return Number(value);
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new UsageError(`${flag} must be a duration ago (2h, 30m, 1d), Unix seconds or an RFC 3339 time.`);
}

async function forward(
  ctx: CliContext,
  target: string,
  secret: () => string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  let event: { id: string; type: string; data?: { id?: string } };
  try {
    event = await verifyWebhook(body, req.headers, secret());
  } catch (err) {
    ctx.note(`refused a delivery: ${(err as Error).message}`);
    res.writeHead(400).end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
    headers[name] = String(req.headers[name]);
  let status = 502;
  try {
    const answer = await fetch(target, { method: 'POST', headers, body, redirect: 'manual' });
    status = answer.status;
    await answer.body?.cancel();
  } catch {
    ctx.note(`could not reach ${target}`);
  }
  ctx.note(`${event.type} ${event.id}${event.data?.id ? ` (${event.data.id})` : ''} → ${status}`);
  res.writeHead(status >= 200 && status < 600 ? status : 502).end();
}

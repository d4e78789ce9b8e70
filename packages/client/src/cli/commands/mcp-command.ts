import { normalizeBaseURL } from '../../vidgen-client.ts';
import type { CliContext } from '../cli-context.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { McpBridge } from '../mcp-bridge.ts';

/**
 * `vidgen mcp`: an MCP server on stdio for desktop agents, forwarding every message to a vidgen
 * server's `/mcp` with the key (docs/mcp.md). Stdout carries only protocol messages.
 */
export async function mcpCommand(ctx: CliContext): Promise<number> {
  const { apiKey, baseURL } = ctx.config;
  if (!apiKey) throw new UsageError('vidgen mcp needs an API key: set VIDGEN_API_KEY (or --api-key).', EXIT.auth);
  const stdin = ctx.io.stdin;
  if (!stdin) throw new UsageError('vidgen mcp reads JSON-RPC messages from stdin.');
  const bridge = new McpBridge({
    endpoint: `${normalizeBaseURL(baseURL)}/mcp`,
    apiKey,
    send: (line) => ctx.io.stdout.write(`${line}\n`),
    note: (line) => ctx.io.stderr.write(`${line}\n`),
  });
  const stop = () => void bridge.close();
  ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of lines(stdin)) bridge.forward(line);
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    // The agent closed stdin: nobody is left to read an answer.
    await bridge.close();
  }
  return EXIT.ok;
}

async function* lines(input: AsyncIterable<unknown>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of input) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      yield buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf('\n');
    }
  }
  if (buffer.trim() !== '') yield buffer;
}

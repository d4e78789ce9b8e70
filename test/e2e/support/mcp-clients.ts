import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

export const VIDGEN_BIN = fileURLToPath(new URL('../../../packages/client/bin/vidgen.mjs', import.meta.url));

/** How an agent reaches the server: `/mcp` over HTTP, or `vidgen mcp` on stdio bridging to it. */
export type McpTransportKind = 'http' | 'stdio';

/** The official SDK's client, connected over HTTP or through the `vidgen mcp` bridge. */
export async function connectMcp(kind: McpTransportKind, baseUrl: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'vidgen-e2e', version: '1.0.0' });
  const transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
          requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
        })
      : new StdioClientTransport({
          command: process.execPath,
          args: [VIDGEN_BIN, 'mcp'],
          env: { PATH: process.env.PATH ?? '', VIDGEN_BASE_URL: baseUrl, ...(key ? { VIDGEN_API_KEY: key } : {}) },
          stderr: 'pipe',
        });
  await client.connect(transport);
  return client;
}

/** A create called as an MCP task, answered at once with the task (not waited for). */
export async function createAsTask(client: Client, name: string, args: Record<string, unknown>, ttl = 60_000) {
  const answer = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl } } },
    CreateTaskResultSchema,
  );
  return answer.task;
}

export { CallToolResultSchema };

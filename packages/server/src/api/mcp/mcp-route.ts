import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { McpHandler, McpServerDeps } from './mcp-server.ts';

export interface McpRouteDeps extends McpServerDeps {
  /**
   * Origins a browser page may call `/mcp` from (the public URL's, and VIDGEN_MCP_ALLOWED_ORIGINS).
   * Any other `Origin` is refused: the MCP specification's guard against DNS rebinding.
   */
  allowedOrigins: readonly string[];
}

/** A JSON-RPC error with no id, as the transport answers requests it refuses before reading them. */
function rpcRefusal(reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}) {
  return reply
    .code(status)
    .headers(headers)
    .send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md). The key check is the
 * app's, as on every route; the SDK is imported on the first request, so a process that never
 * serves one never loads it (the idle memory aim, docs/performance.md).
 */
export function registerMcpRoute(app: FastifyInstance, deps: McpRouteDeps): void {
  let loading: Promise<McpHandler> | undefined;
  const handler = () => {
    loading ??= import('./mcp-server.ts').then((module) => module.createMcpHandler(deps));
    // A failed import is tried again by the next request rather than remembered.
    loading.catch(() => (loading = undefined));
    return loading;
  };
  const schema = { hide: true };
  app.post('/mcp', { schema }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !deps.allowedOrigins.includes(origin))
      return rpcRefusal(reply, 403, `Origin ${origin} may not call this server.`);
    return reply.send(await (await handler())(request, reply));
  });
  // Stateless: no session to resume or end, and nothing is sent outside a request's own answer.
  const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
    rpcRefusal(reply, 405, 'Method not allowed: this server is stateless; POST each message.', { allow: 'POST' });
  app.get('/mcp', { schema }, notAllowed);
  app.delete('/mcp', { schema }, notAllowed);
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as webTransport from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from '@vidgen/protocol';
import serverPackage from '../../../package.json' with { type: 'json' };
import { callerOf } from '../authenticate.ts';
import { fromSchemaIssues, type SchemaIssue } from '../error-handler.ts';
import { signedContentUrl, type LinkOptions } from '../links.ts';
import { McpCalls, type McpDeps, type McpRequest } from './mcp-calls.ts';
import { TOOLS } from './mcp-tools.ts';

export interface McpServerDeps extends McpDeps {
  links: LinkOptions;
  clock: () => number;
}

/** Answers one HTTP request to `/mcp` with the web Response the SDK's transport makes. */
export type McpHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<Response>;

/**
 * The official SDK's low-level server over its Streamable HTTP transport, stateless: a server and
 * a transport per request, so any API process answers any request and MCP tasks are the task rows
 * (docs/mcp.md). This module is loaded on the first `/mcp` request only (api/mcp/mcp-route.ts).
 */
export function createMcpHandler(deps: McpServerDeps): McpHandler {
  return async (request, reply) => {
    const server = serverFor(new McpCalls(deps, requestOf(request, deps)));
    const transport = new webTransport.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // When the answer is sent or its client is gone (the response closes; the request's own close
    // comes as soon as its body is read): closing the server aborts what its handlers still wait for.
    reply.raw.once('close', () => void server.close());
    return transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
  };
}

function serverFor(calls: McpCalls): Server {
  const server = new Server(
    { name: 'vidgen', version: serverPackage.version },
    {
      capabilities: {
        tools: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (call, extra) =>
    calls.callTool(call.params.name, call.params.arguments, extra, call.params.task),
  );
  server.setRequestHandler(GetTaskRequestSchema, (call) => calls.getTask(call.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, (call, extra) => calls.taskResult(call.params.taskId, extra));
  server.setRequestHandler(ListTasksRequestSchema, (call) => calls.listTasks(call.params?.cursor));
  server.setRequestHandler(CancelTaskRequestSchema, (call) => calls.cancelTask(call.params.taskId));
  return server;
}

function requestOf(request: FastifyRequest, deps: McpServerDeps): McpRequest {
  const caller = callerOf(request);
  return {
    caller,
    signedLink: (task, variant) => signedContentUrl(request, task, caller.keyId, deps.links, deps.clock(), variant),
    check(schema: TSchema, value: unknown) {
      // The app's own validator, with its options: a tool's arguments are checked as a body of the API is.
      const validate = request.compileValidationSchema(schema);
      if (validate(value)) return undefined;
      return fromSchemaIssues((validate.errors ?? []) as SchemaIssue[], 'arguments', value);
    },
  };
}

/** The request as the web-standard transport reads it; its body was parsed (and bounded) by Fastify. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://${request.host || 'localhost'}${request.url}`, { method: request.method, headers });
}

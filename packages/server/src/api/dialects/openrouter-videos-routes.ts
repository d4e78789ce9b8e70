import type { FastifyInstance } from 'fastify';
import { OpenRouterVideoList } from '@vidgen/protocol';
import type { Dialect, DialectRouteDeps } from './dialect.ts';
import { registerCursorList } from './cursor-list.ts';

/**
 * OpenRouter's shape beyond create, poll, cancel and stream: its listing (a vidgen extension; the
 * provider never lists), whose entries carry signed `unsigned_urls` as the poll's do.
 */
export function registerOpenRouterVideoRoutes(app: FastifyInstance, dialect: Dialect, deps: DialectRouteDeps): void {
  registerCursorList(app, dialect, deps, {
    operationId: 'listVideosOpenRouter',
    summary: "OpenRouter's shape: list jobs (`after` a `job-…` id, or a request from `ai-sdk/openrouter`)",
    answer: OpenRouterVideoList,
    context: deps.context,
  });
}

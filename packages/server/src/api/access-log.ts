import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Request logging: one line per answered request (method, path, status, milliseconds), written
 * when the answer is sent, instead of Fastify's two (one on arrival, one on completion). Each
 * line is a synchronous write to stdout, and the pair cost a poll more CPU than reading its task
 * (bench/poll.bench.ts). With the access log off, only failed requests are logged. The `req`
 * serializer (logging.ts) keeps query strings, which carry signed-link secrets, out of the line.
 * Fastify's other lines (stream errors, serializer failures) are kept as they are.
 */
export class AccessLog extends LogController {
  constructor(private readonly everyRequest: boolean) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    if (error) request.log.error({ req: request, res: reply, err: error, ms }, 'request errored');
    else if (this.everyRequest) request.log.info({ req: request, res: reply, ms }, 'request completed');
  }
}

import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Ends, when the server closes, the connections that never carried a request. Node counts them
 * busy (only a connection between two requests is idle to `closeIdleConnections`), so a drain
 * would wait for each until its headers time-out, a minute: undici leaves one such connection
 * behind whenever a `fetch` whose answer was still streaming is aborted, which is how clients
 * leave task streams (docs/streams.md). Nothing is lost: no request arrived on them.
 */
export function endUnusedConnectionsOnClose(app: FastifyInstance): void {
  const unused = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (request: { socket: Socket }) => unused.delete(request.socket));
  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of unused) socket.destroy();
    done();
  });
}

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeImage } from './images.ts';

/** Serves one PNG, but only once `release()` is called; requests wait until then. */
export function gatedImageServer() {
  const waiting: ServerResponse[] = [];
  let png: Buffer;
  let released = false;
  let requested = false;
  const send = (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  const server = createServer((_req, res) => {
    requested = true;
    if (released) send(res);
    else waiting.push(res);
  });
  return {
    get url() {
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.png`;
    },
    get requested() {
      return requested;
    },
    async start() {
      png = await makeImage(400, 300, 'png');
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    },
    release() {
      released = true;
      for (const res of waiting.splice(0)) send(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

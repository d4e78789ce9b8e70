import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given (no URL normalisation, no header validation) and reads the
 * answer until the server closes: for requests `fetch` refuses to send (bad percent-encoding,
 * oversized or invalid headers).
 */
export function rawRequest(baseUrl: string, head: string, body: Buffer | string = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    let failure: Error | undefined;
    // A server may answer (413, 431) and close while the request is still being written: the
    // write fails, the answer is still there to read.
    socket.on('error', (err) => (failure ??= err));
    socket.on('close', () => {
      if (chunks.length === 0) return reject(failure ?? new Error('closed without an answer'));
      const text = Buffer.concat(chunks).toString('latin1');
      const [headText, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = headText.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(head.endsWith('\r\n\r\n') ? head : `${head}\r\nconnection: close\r\n\r\n`);
    // No half-close: a server may treat a client's FIN as the client going away and answer nothing.
    if (body.length) socket.write(body);
    socket.setTimeout(60_000, () => socket.destroy(new Error('no answer within 60 s')));
  });
}

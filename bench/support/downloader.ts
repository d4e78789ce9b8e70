import { Agent, request } from 'node:http';

export interface Downloads {
  /** Whole responses per second over all streams. */
  perSecond: number;
  bytes: number;
}

/**
 * `streams` keep-alive connections, each fetching `url` again and again for `seconds`, reading
 * every byte. Not autocannon: its parser inspects body bytes in JavaScript and caps near 50 MB/s
 * on incompressible data, so it measured itself rather than the server (a file of zeros went
 * 25× faster through it than an MP4 of the same size from the same nginx).
 */
export async function download(
  url: string,
  streams: number,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<Downloads> {
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  let bytes = 0;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve());
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const started = performance.now();
  const stream = async () => {
    while (performance.now() < deadline) {
      await once();
      count++;
    }
  };
  try {
    await Promise.all(Array.from({ length: streams }, stream));
  } finally {
    agent.destroy();
  }
  return { perSecond: count / ((performance.now() - started) / 1000), bytes };
}

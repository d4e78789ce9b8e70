/**
 * Content download: `GET /v1/videos/{id}/content` (Bearer key, the whole MP4 of a finished task)
 * against nginx serving the same file with sendfile, with 1 and 4 concurrent streams, each stream
 * downloading the file again and again. Ratios are medians of paired rounds (aim ≥ 0.8 for one
 * stream, ≥ 0.7 for four), printed with the load average. Both log one line per request. Without
 * nginx installed the comparison is skipped with a message and only vidgen's figures are printed.
 * The downloader is bench/support/downloader.ts, not autocannon (it says why).
 *
 *   node --import tsx bench/content.bench.ts [--seconds 3] [--rounds 3] [--full: 8 s, 5 rounds]
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverWithDoneTask } from './support/done-task.ts';
import { download } from './support/downloader.ts';
import { findNginx, startNginx, type Nginx } from './support/nginx.ts';
import { FULL, describeRatios, load, numberArg, paired } from './support/paired.ts';

const SECONDS = numberArg('seconds', FULL ? 8 : 3);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);

/** Whole-file downloads per second; an answer other than 200 fails the bench. */
async function downloads(url: string, streams: number, headers: Record<string, string> = {}): Promise<{ rps: number }> {
  return { rps: (await download(url, streams, SECONDS, headers)).perSecond };
}

async function findMp4(dir: string): Promise<string> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.mp4')) return join(entry.parentPath, entry.name);
  }
  throw new Error(`no MP4 under ${dir}`);
}

const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-content-'));
const { server, key, id } = await serverWithDoneTask(dataDir);
let nginx: Nginx | undefined;
try {
  const vidgenUrl = `${server.url}/v1/videos/${id}/content`;
  const auth = { authorization: `Bearer ${key}` };
  const size = Number((await fetch(vidgenUrl, { method: 'HEAD', headers: auth })).headers.get('content-length'));
  console.log(
    `one MP4 of ${(size / 1e6).toFixed(2)} MB, ${SECONDS} s per measurement, ${ROUNDS} paired rounds, one vidgen process (API + worker, as npm start)`,
  );
  const binary = findNginx();
  if (binary) {
    nginx = await startNginx(binary, await findMp4(join(dataDir, 'blobs')));
  } else {
    console.log('nginx: not installed, so the comparison rows are skipped (apt-get install -y nginx-light)');
  }
  for (const streams of [1, 4]) {
    await downloads(vidgenUrl, streams, auth);
    if (!nginx) {
      const alone = await downloads(vidgenUrl, streams, auth);
      console.log(`${streams} stream(s): vidgen ${alone.rps.toFixed(0)} downloads/s | nginx skipped | ${load()}`);
      continue;
    }
    const nginxUrl = nginx.url;
    await downloads(nginxUrl, streams);
    const result = await paired(
      ROUNDS,
      async () => (await downloads(nginxUrl, streams)).rps,
      async () => (await downloads(vidgenUrl, streams, auth)).rps,
    );
    const mbps = (rps: number) => `${((rps * size) / 1e6).toFixed(0)} MB/s`;
    console.log(
      `${streams} stream(s): nginx ${result.baseline.toFixed(0)} downloads/s (${mbps(result.baseline)}) | vidgen ${result.subject.toFixed(0)} downloads/s (${mbps(result.subject)}) | ` +
        `${describeRatios(result)} (aim ≥ ${streams === 1 ? 0.8 : 0.7}) | ${load()}`,
    );
  }
} finally {
  await nginx?.stop();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';

export interface Nginx {
  /** Where nginx serves the file. */
  url: string;
  stop(): Promise<void>;
}

/** The nginx binary on PATH (or in /usr/sbin), or undefined when it is not installed. */
export function findNginx(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

/**
 * nginx serving a copy of `file` on loopback, configured as a static file server usually is:
 * sendfile on, one worker (the Node server is one process too), an access log line per request
 * written to a file (vidgen writes one per request too, VIDGEN_ACCESS_LOG). It lives in its own
 * temporary directory, removed by stop().
 */
export async function startNginx(binary: string, file: string): Promise<Nginx> {
  const prefix = await mkdtemp(join(tmpdir(), 'vidgen-bench-nginx-'));
  const root = join(prefix, 'root');
  await mkdir(join(prefix, 'logs'), { recursive: true });
  await mkdir(root);
  await copyFile(file, join(root, basename(file)));
  // Started as root, nginx's workers drop to an unprivileged user: let them reach the file.
  await chmod(prefix, 0o755);
  const port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    `
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${join(prefix, 'logs', 'access.log')};
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${join(prefix, 'tmp-body')};
  proxy_temp_path ${join(prefix, 'tmp-proxy')};
  fastcgi_temp_path ${join(prefix, 'tmp-fastcgi')};
  uwsgi_temp_path ${join(prefix, 'tmp-uwsgi')};
  scgi_temp_path ${join(prefix, 'tmp-scgi')};
  types { video/mp4 mp4; }
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  const child = spawn(binary, ['-p', prefix, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  await waitUntilServing(base, child, () => stderr);
  return {
    url: `${base}/${basename(file)}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGQUIT');
        });
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

async function waitUntilServing(url: string, child: ChildProcess, stderr: () => string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr()}`);
    try {
      await fetch(url, { method: 'HEAD' });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not start: ${stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

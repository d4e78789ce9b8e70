import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { build, stop } from 'esbuild';

/** One file of the console, held in memory in every encoding it may be sent in. */
export interface ConsoleAsset {
  contentType: string;
  /** Hashed names never change content, so they may be cached for a year; the page must revalidate. */
  cacheControl: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export interface ConsoleAssets {
  /** The page itself (`/`). */
  index: ConsoleAsset;
  /** Hashed files by name (`/assets/<name>`). */
  files: Map<string, ConsoleAsset>;
}

// Found through the package, not this file's URL: the server's build bundles this file elsewhere.
const SRC_DIR = join(dirname(createRequire(import.meta.url).resolve('@vidgen/console/package.json')), 'src/');
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

let pending: Promise<ConsoleAssets> | undefined;
let pendingAdmin: Promise<ConsoleAssets> | undefined;

/**
 * The operator's console (`src/admin/`), chart library included, built on its first request like the
 * console's. Nothing of it may be kept by a cache: every file is `no-store`.
 */
export function loadAdminAssets(): Promise<ConsoleAssets> {
  pendingAdmin ??= buildAssets('admin', 'admin', 'no-store').catch((err) => {
    pendingAdmin = undefined;
    throw err;
  });
  return pendingAdmin;
}

/**
 * The console bundled from source (app code + SDK) into memory. Built once per process and
 * shared, so several services in one process (tests) pay for it once; a failed build is
 * retried by the next caller instead of being remembered.
 */
export function loadConsoleAssets(): Promise<ConsoleAssets> {
  pending ??= buildConsoleAssets().catch((err) => {
    pending = undefined;
    throw err;
  });
  return pending;
}

export function buildConsoleAssets(): Promise<ConsoleAssets> {
  return buildAssets('app', 'console', IMMUTABLE);
}

/**
 * One app of `src/<dir>/` (its `main.ts`, `styles.css` and `index.html`) bundled into memory: the
 * console (`app`) or the operator's console (`admin`). Both share the bundler, the styles and the SDK.
 */
export async function buildAssets(dir: string, name: string, cacheControl: string): Promise<ConsoleAssets> {
  const appDir = `${SRC_DIR}${dir}/`;
  // esbuild keeps a service process (about 18 MB) alive after a build; each app is built once.
  const result = await build({
    entryPoints: [`${appDir}main.ts`, `${appDir}styles.css`],
    bundle: true,
    write: false,
    outdir: '/assets',
    entryNames: `${name}-[hash]`,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  }).finally(() => stop());
  const files = new Map<string, ConsoleAsset>();
  const names: Record<string, string> = {};
  for (const out of result.outputFiles) {
    const file = out.path.slice(out.path.lastIndexOf('/') + 1);
    const ext = file.slice(file.lastIndexOf('.'));
    files.set(file, asset(Buffer.from(out.contents), CONTENT_TYPES[ext], cacheControl));
    names[ext] = file;
  }
  if (!names['.js'] || !names['.css']) throw new Error(`${name} build produced no script or no stylesheet`);
  const template = await readFile(`${appDir}index.html`, 'utf8');
  // Relative links keep the console working when a proxy serves vidgen under a path prefix.
  // The operator's page is `/admin` (no trailing slash): its files are under `admin/assets/`.
  const at = dir === 'app' ? 'assets/' : `${dir}/assets/`;
  const html = template.replace('%SCRIPT%', `${at}${names['.js']}`).replace('%STYLE%', `${at}${names['.css']}`);
  const pageCache = cacheControl === IMMUTABLE ? 'no-cache' : cacheControl;
  return { index: asset(Buffer.from(html), CONTENT_TYPES['.html'], pageCache), files };
}

function asset(identity: Buffer, contentType: string, cacheControl: string): ConsoleAsset {
  const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`;
  return {
    contentType,
    cacheControl,
    etag,
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
  };
}

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
const APP_DIR = join(dirname(createRequire(import.meta.url).resolve('@vidgen/console/package.json')), 'src/app/');
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

let pending: Promise<ConsoleAssets> | undefined;

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

export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  // esbuild keeps a service process (about 18 MB) alive after a build; the console is built once.
  const result = await build({
    entryPoints: [`${APP_DIR}main.ts`, `${APP_DIR}styles.css`],
    bundle: true,
    write: false,
    outdir: '/assets',
    entryNames: 'console-[hash]',
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
    const name = out.path.slice(out.path.lastIndexOf('/') + 1);
    const ext = name.slice(name.lastIndexOf('.'));
    files.set(name, asset(Buffer.from(out.contents), CONTENT_TYPES[ext], IMMUTABLE));
    names[ext] = name;
  }
  if (!names['.js'] || !names['.css']) throw new Error('console build produced no script or no stylesheet');
  const template = await readFile(`${APP_DIR}index.html`, 'utf8');
  // Relative links keep the console working when a proxy serves vidgen under a path prefix.
  const html = template.replace('%SCRIPT%', `assets/${names['.js']}`).replace('%STYLE%', `assets/${names['.css']}`);
  return { index: asset(Buffer.from(html), CONTENT_TYPES['.html'], 'no-cache'), files };
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

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand, type CommandResult } from './support/process.ts';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startTestService, type TestService } from './support/service.ts';
import { browserUnavailable, launchBrowser } from './support/browser.ts';

const CLIENT_DIR = fileURLToPath(new URL('../../packages/client/', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const isMp4 = (bytes: Uint8Array) => Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp';

// `@vidgen/client` as a user outside this repository gets it: `npm pack`, `npm install <tarball>`
// into a project in the temp dir, then plain `node`, `require` and a browser bundle against a real server.
describe('the packed SDK in a project outside the repository', () => {
  let svc: TestService;
  let project: string;
  let tarball: string;
  let env: Record<string, string>;
  before(async () => {
    svc = await startTestService();
    project = await mkdtemp(join(tmpdir(), 'vidgen-packed-'));
    const packed = await exec('npm', ['pack', '--pack-destination', project, '--silent'], CLIENT_DIR);
    assert.equal(packed.code, 0, packed.stderr);
    const packedName = (await readdir(project)).find((n) => n.endsWith('.tgz'));
    assert.ok(packedName, 'npm pack wrote a tarball');
    tarball = packedName;
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'outside', private: true, type: 'module' }));
    // The SDK has no runtime dependencies, so an offline install of the tarball must succeed.
    const installed = await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], project);
    assert.equal(installed.code, 0, installed.stderr);
    env = { VIDGEN_BASE_URL: svc.url, VIDGEN_API_KEY: await svc.createKey('packed') };
  });
  after(async () => {
    await svc?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('ships built JavaScript and declarations only', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'node_modules/@vidgen/client/package.json'), 'utf8'));
    assert.deepEqual(manifest.dependencies ?? {}, {});
    const files = await readdir(join(project, 'node_modules/@vidgen/client/dist'), { recursive: true });
    assert.ok(files.includes('index.d.ts') && files.includes('index.cjs'));
    assert.ok(
      !files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.d.cts')),
      'no TypeScript sources',
    );
    const types = await readFile(join(project, 'node_modules/@vidgen/client/dist/index.d.ts'), 'utf8');
    assert.doesNotMatch(types, /from '@vidgen\/protocol'|@sinclair/, 'declarations name no unpublished package');
    // The declarations type-check in a strict project of the user's, without skipLibCheck.
    await writeFile(
      join(project, 'check.ts'),
      `
      import { VidgenClient, type FamilyATask, type FamilyBTask } from '@vidgen/client';
      const client = new VidgenClient({ baseURL: 'http://127.0.0.1:1', apiKey: 'k' });
      export const task: Promise<FamilyBTask> = client.videoGenerations.wait('t', { onProgress: (v, _t, plan) => console.log(v.status, plan.longPoll) });
      // A task is a union on its status: the check of the status is what reaches the video.
      export function urlOf(a: FamilyATask, b: FamilyBTask): string {
        // @ts-expect-error: before the status says done, the video may not be there
        const early: string = a.video.url;
        if (a.status === 'done') return a.video.url;
        if (b.status === 'SUCCESS' && !b.expired) return b.result_url;
        // @ts-expect-error: no result outside a success
        const none: string = b.result_url;
        return early + none;
      }
    `,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
  });

  it('ships package.json as a package: no build script to run on install, no development dependencies', async () => {
    const unpacked = join(project, 'unpacked');
    await mkdir(unpacked);
    const untar = await exec('tar', ['-xzf', join(project, tarball), '-C', unpacked], project);
    assert.equal(untar.code, 0, untar.stderr);
    const manifest = JSON.parse(await readFile(join(unpacked, 'package/package.json'), 'utf8'));
    assert.equal(manifest.name, '@vidgen/client');
    assert.equal(manifest.scripts?.prepare, undefined, 'prepare would run a build in installs from git or a folder');
    assert.equal(manifest.devDependencies, undefined);
    assert.deepEqual(manifest.dependencies ?? {}, {});
    assert.deepEqual(manifest.typesVersions, { '*': { node: ['./dist/node/index.d.ts'] } });
  });

  it('type-checks `@vidgen/client/node` under moduleResolution node10, through typesVersions', async () => {
    const dir = join(project, 'node10');
    await mkdir(dir);
    await writeFile(
      join(dir, 'check.ts'),
      `
      import { NodeVidgenClient, familyAImage } from '@vidgen/client/node';
      import { VidgenClient, type FamilyATask } from '@vidgen/client';
      const node: VidgenClient = new NodeVidgenClient({ baseURL: 'http://127.0.0.1:1', apiKey: 'k', journalDir: 'j' });
      export const frame = familyAImage(node as NodeVidgenClient, 'frame.png');
      export const url = (t: FamilyATask) => (t.status === 'done' ? t.video.url : undefined);
    `,
    );
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'commonjs',
          moduleResolution: 'node10',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = await exec(process.execPath, [TSC, '-p', 'tsconfig.json', '--traceResolution'], dir);
    assert.equal(
      tsc.code,
      0,
      tsc.stdout
        .split('\n')
        .filter((l) => l.includes('error'))
        .join('\n') + tsc.stderr,
    );
    // It resolved through typesVersions, not by luck: the path mapping is named in the trace.
    assert.match(tsc.stdout, /Module name 'node', matched pattern 'node'\./);
    assert.match(tsc.stdout, /'@vidgen\/client\/node' was successfully resolved to '[^']*dist\/node\/index\.d\.ts'/);
  });

  it('generates and downloads a video from plain `node file.mjs`', async () => {
    await writeFile(
      join(project, 'generate.mjs'),
      `
      import { NodeVidgenClient } from '@vidgen/client/node';
      const client = new NodeVidgenClient({ baseURL: process.env.VIDGEN_BASE_URL, apiKey: process.env.VIDGEN_API_KEY });
      const { task_id } = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'a lighthouse at dusk' });
      const task = await client.videoGenerations.wait(task_id, { maxWaitMs: 120_000 });
      const saved = await client.download({ family: 'B', task }, { path: 'out.mp4' });
      console.log(JSON.stringify({ status: task.status, bytes: saved.bytes }));
    `,
    );
    const r = await exec(process.execPath, ['generate.mjs'], project, env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).status, 'SUCCESS');
    assert.ok(isMp4(await readFile(join(project, 'out.mp4'))));
  });

  it('loads through require() and through the `vidgen` bin', async () => {
    await writeFile(
      join(project, 'models.cjs'),
      `
      const { VidgenClient, APIError } = require('@vidgen/client');
      const node = require('@vidgen/client/node');
      new VidgenClient({ baseURL: process.env.VIDGEN_BASE_URL, apiKey: process.env.VIDGEN_API_KEY }).models.list()
        .then((m) => console.log(JSON.stringify({ ids: m.data.map((x) => x.id), sameErrors: APIError === node.APIError })));
    `,
    );
    const r = await exec(process.execPath, ['models.cjs'], project, env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(out.ids.includes('video-v1-5s'));
    assert.equal(out.sameErrors, true, 'one copy of each error class across entry points');
    const cli = await exec(join(project, 'node_modules/.bin/vidgen'), ['models', '--json'], project, {
      ...env,
      VIDGEN_JOURNAL_DIR: join(project, 'journal'),
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.ok(JSON.parse(cli.stdout).some((m: { id: string }) => m.id === 'video-v1-5s'));
  });

  it('bundles for the browser and generates from a page', { skip: browserUnavailable() }, async () => {
    await writeFile(
      join(project, 'page.mjs'),
      `
      import { VidgenClient } from '@vidgen/client';
      window.generate = async (apiKey) => {
        const client = new VidgenClient({ baseURL: location.origin, apiKey });
        const { task_id } = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'waves on a beach' });
        const task = await client.videoGenerations.wait(task_id, { maxWaitMs: 120_000 });
        const video = await (await client.content.download(task_id)).arrayBuffer();
        return { status: task.status, head: Array.from(new Uint8Array(video.slice(0, 8))) };
      };
    `,
    );
    // A browser platform bundle fails to build if anything reaches for a Node built-in.
    const bundle = await build({
      entryPoints: [join(project, 'page.mjs')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      absWorkingDir: project,
    });
    const script = bundle.outputFiles[0].text;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      // The page is served from the server's own origin, so the SDK's calls are same-origin.
      await page.route(`${svc.url}/packed-sdk.html`, (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>sdk</title>' }),
      );
      await page.goto(`${svc.url}/packed-sdk.html`);
      await page.addScriptTag({ content: script });
      const result = await page.evaluate(
        (key) =>
          (window as unknown as { generate(k: string): Promise<{ status: string; head: number[] }> }).generate(key),
        env.VIDGEN_API_KEY,
      );
      assert.equal(result.status, 'SUCCESS');
      assert.ok(isMp4(Uint8Array.from(result.head)));
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
  });
});

function exec(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand(command, args, { cwd, env });
}

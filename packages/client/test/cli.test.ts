import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCliArgs } from '../src/cli/cli-args.ts';
import { resolveConfig } from '../src/cli/cli-context.ts';
import { EXIT, UsageError, exitCodeFor } from '../src/cli/exit-codes.ts';
import { ProgressReporter } from '../src/cli/progress-reporter.ts';
import { humanSize } from '../src/cli/human-size.ts';
import { formatTable } from '../src/cli/table.ts';
import { runCli } from '../src/cli/main.ts';
import { VERSION } from '../src/version.ts';
import {
  APIError,
  APIConnectionError,
  DownloadCheckError,
  ResultExpiredError,
  SubmitOutcomeUnknown,
  TaskFailedError,
  WaitTimeoutError,
} from '../src/index.ts';

const apiError = (status: number) =>
  APIError.generate(status, { error: { message: 'm', code: 'c' } }, 'x', new Headers());

describe('vidgen CLI parts', () => {
  it('maps every error to its documented exit code', () => {
    assert.equal(exitCodeFor(new UsageError('x')), EXIT.other);
    for (const status of [400, 404, 409, 413, 415, 422])
      assert.equal(exitCodeFor(apiError(status)), 2, `HTTP ${status}`);
    assert.equal(exitCodeFor(apiError(401)), 3);
    assert.equal(exitCodeFor(apiError(403)), 3);
    assert.equal(exitCodeFor(apiError(429)), 1);
    assert.equal(exitCodeFor(apiError(500)), 1);
    assert.equal(exitCodeFor(new APIConnectionError()), 1);
    assert.equal(exitCodeFor(new TaskFailedError('t', 'B', 'c', 'm', {})), 4);
    assert.equal(exitCodeFor(new WaitTimeoutError('t', 'B', 'queued', 1)), 5);
    assert.equal(exitCodeFor(new SubmitOutcomeUnknown('k', 'B', 'sha256:0', 1, 'm')), 6);
    assert.equal(exitCodeFor(new DownloadCheckError('signature', 'x')), 7);
    assert.equal(exitCodeFor(new ResultExpiredError('t')), 8);
    assert.equal(exitCodeFor(apiError(410)), 8);
  });

  it('parses repeated flags and refuses unknown ones', () => {
    const args = parseCliArgs(['generate', '-m', 'x', '--image', 'a.png', '--image', 'https://h/b.jpg', '--json']);
    assert.equal(args.command, 'generate');
    assert.deepEqual(args.flags.image, ['a.png', 'https://h/b.jpg']);
    assert.equal(args.flags.json, true);
    assert.throws(() => parseCliArgs(['generate', '--colour', 'red']), UsageError);
  });

  it('takes flags over the environment over defaults', () => {
    const env = { VIDGEN_BASE_URL: 'http://env:1', VIDGEN_API_KEY: 'env-key', VIDGEN_JOURNAL_DIR: '/tmp/env-journal' };
    assert.deepEqual(resolveConfig({}, env), {
      baseURL: 'http://env:1',
      apiKey: 'env-key',
      journalDir: '/tmp/env-journal',
    });
    const flagged = resolveConfig(
      { 'base-url': 'http://flag:2', 'api-key': 'flag-key', 'journal-dir': '/tmp/flag' },
      env,
    );
    assert.deepEqual(flagged, { baseURL: 'http://flag:2', apiKey: 'flag-key', journalDir: '/tmp/flag' });
    assert.equal(resolveConfig({ 'no-journal': true }, env).journalDir, undefined);
    assert.match(resolveConfig({}, {}).journalDir!, /\.vidgen[/\\]journal$/);
    assert.equal(resolveConfig({}, {}).baseURL, 'http://127.0.0.1:8080');
  });

  it('uses the saved profile below the environment, and its key only for its own server', () => {
    const profile = { baseURL: 'http://saved:3/v1', apiKey: 'saved-key' };
    assert.deepEqual(resolveConfig({}, { VIDGEN_JOURNAL_DIR: '/tmp/j' }, profile), {
      baseURL: 'http://saved:3/v1',
      apiKey: 'saved-key',
      journalDir: '/tmp/j',
    });
    assert.equal(resolveConfig({}, { VIDGEN_API_KEY: 'env-key' }, profile).apiKey, 'env-key');
    assert.equal(resolveConfig({}, { VIDGEN_API_KEY: '' }, profile).apiKey, 'saved-key', 'an empty variable is unset');
    const other = resolveConfig({ 'base-url': 'http://other:4' }, {}, profile);
    assert.equal(other.apiKey, undefined, 'the saved key never goes to another server');
    assert.equal(resolveConfig({ 'base-url': 'http://saved:3' }, {}, profile).apiKey, 'saved-key');
  });

  it('keeps the version in step with package.json', async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(VERSION, manifest.version);
  });

  it('draws a bar in place on a terminal and plain lines elsewhere', () => {
    const tty = {
      text: '',
      isTTY: true,
      write(s: string) {
        this.text += s;
      },
    };
    const view = {
      id: 't1',
      family: 'B' as const,
      status: 'IN_PROGRESS',
      phase: 'pending' as const,
      progress: 50,
      queuePosition: undefined,
      error: undefined,
    };
    const bar = new ProgressReporter(tty);
    bar.task(view);
    bar.done();
    assert.match(tty.text, /^\r\x1b\[2Kt1 \[█{12}░{12}\] 50% IN_PROGRESS \d+s\n$/);
    const log = {
      text: '',
      write(s: string) {
        this.text += s;
      },
    };
    const plain = new ProgressReporter(log);
    plain.task(view);
    plain.task(view);
    plain.task({ ...view, status: 'SUCCESS', progress: 100 });
    assert.equal(log.text, 'task t1: IN_PROGRESS 50%\ntask t1: SUCCESS 100%\n');
  });

  it("shows a queued task's place in the queue instead of a percentage it does not have", () => {
    const tty = {
      text: '',
      isTTY: true,
      write(s: string) {
        this.text += s;
      },
    };
    const queued = {
      id: 't2',
      family: 'B' as const,
      status: 'queued',
      phase: 'pending' as const,
      progress: 0,
      queuePosition: 3,
      error: undefined,
    };
    const bar = new ProgressReporter(tty);
    bar.begin('t2');
    bar.task(queued, { longPoll: true, nextPollInMs: 0 });
    bar.task({ ...queued, queuePosition: 0 }, { longPoll: true, nextPollInMs: 0 });
    bar.task({ ...queued, status: 'IN_PROGRESS', progress: 25, queuePosition: undefined });
    bar.done();
    const lines = tty.text.split('\r\x1b[2K').filter(Boolean);
    assert.match(lines[0], /^t2 waiting for the server's first answer \d+s$/);
    assert.match(lines[1], /^t2 queued, 3 tasks ahead \d+s · live$/);
    assert.match(lines[2], /^t2 queued, next in line \d+s · live$/);
    assert.match(lines[3], /^t2 \[█{6}░{18}\] 25% IN_PROGRESS \d+s\n$/);
    assert.doesNotMatch(tty.text, /\?%/);
    const log = {
      text: '',
      write(s: string) {
        this.text += s;
      },
    };
    const plain = new ProgressReporter(log);
    plain.task({ ...queued, queuePosition: 1 });
    plain.task({ ...queued, queuePosition: 1 });
    plain.task({ ...queued, queuePosition: 0 });
    assert.equal(log.text, 'task t2: queued, 1 task ahead\ntask t2: queued, next in line\n');
  });

  it('writes download sizes in the unit their magnitude asks for', () => {
    assert.equal(humanSize(512), '512 B');
    assert.equal(humanSize(35_000), '35.0 KB');
    assert.equal(humanSize(12_400_000), '12.4 MB');
    assert.equal(humanSize(3_500, 35_000), '3.5 KB', 'the total picks the unit');
    const tty = {
      text: '',
      isTTY: true,
      write(s: string) {
        this.text += s;
      },
    };
    const bar = new ProgressReporter(tty);
    bar.download(17_500, 35_000);
    bar.download(35_000, 35_000);
    bar.done();
    assert.match(tty.text, /downloading \[█{12}░{12}\] 50% 17\.5 KB of 35\.0 KB/);
    assert.match(tty.text, /downloading \[█{24}\] 100% 35\.0 KB of 35\.0 KB\n$/);
    assert.doesNotMatch(tty.text, /MB/);
  });

  it('lines a table up under its header', () => {
    assert.equal(
      formatTable(
        ['id', 'status', 'model'],
        [
          ['a-long-id', 'queued', 'm1'],
          ['b', 'IN_PROGRESS', 'model-two'],
        ],
      ),
      'ID         STATUS       MODEL\na-long-id  queued       m1\nb          IN_PROGRESS  model-two',
    );
  });

  it('prints usage for --help and fails on an unknown command', async () => {
    const out = {
      text: '',
      write(s: string) {
        this.text += s;
      },
    };
    const err = {
      text: '',
      write(s: string) {
        this.text += s;
      },
    };
    assert.equal(await runCli(['--help'], {}, { stdout: out, stderr: err }), 0);
    assert.match(out.text, /Exit codes:/);
    assert.equal(await runCli(['nope'], {}, { stdout: out, stderr: err }), 1);
    assert.match(err.text, /unknown command 'nope'/);
    assert.equal(await runCli(['wiat'], {}, { stdout: out, stderr: err }), 1);
    assert.match(err.text, /unknown command 'wiat'. Did you mean 'wait'\?/);
    out.text = '';
    assert.equal(await runCli(['help', 'resume'], {}, { stdout: out, stderr: err }), 0);
    assert.match(out.text, /^Finish what the journal still owes/);
  });
});

describe('browser safety', () => {
  it('the main entry point imports nothing from node:', async () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../src/index.ts');
    const seen = new Set<string>();
    const visit = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(file, 'utf8');
      for (const [, spec] of source.matchAll(/^(?:import|export)(?!\s+type\b)[^'"]*?from\s+'([^']+)'/gm)) {
        assert.ok(!spec.startsWith('node:'), `${file} imports ${spec}`);
        if (spec.startsWith('.')) await visit(join(dirname(file), spec));
      }
    };
    await visit(root);
    assert.ok(seen.size > 10);
    assert.ok(![...seen].some((f) => f.includes('/node/') || f.includes('/cli/')));
  });
});

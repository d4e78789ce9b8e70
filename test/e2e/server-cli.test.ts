import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, SERVER_BIN, type CommandResult } from './support/process.ts';
import { describeEnvironment } from '../../packages/server/src/config.ts';
import defaultModels from '../../packages/server/src/catalog/default-models.json' with { type: 'json' };
import serverPackage from '../../packages/server/package.json' with { type: 'json' };

// `vidgen-server` as an operator meets it: help and version that start nothing, refusals with a
// guess, and key commands that check model ids before they write anything.
describe('vidgen-server command line (real processes)', () => {
  let dir: string;
  let dataDir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-server-cli-'));
    dataDir = join(dir, 'data');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  // Run in an empty directory with the data dir unset too, so neither `./data` nor VIDGEN_DATA_DIR may appear.
  const server = (args: string[], env: Record<string, string> = {}): Promise<CommandResult> =>
    runCommand(process.execPath, [SERVER_BIN, ...args], {
      cwd: dir,
      env: { VIDGEN_DATA_DIR: dataDir, VIDGEN_MODELS_FILE: '', PORT: '0', ...env },
    });
  const nothingWritten = async () =>
    assert.deepEqual(await readdir(dir), [], 'no data dir, database or key was created');

  it('--help prints the usage and every environment variable with its default, and starts nothing', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await server(args);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /usage: vidgen-server \[--role all\|api\|worker\]/);
      assert.match(res.stdout, /vidgen-server keys create\|list\|revoke/);
      for (const v of describeEnvironment()) {
        const line = res.stdout.split('\n').find((l) => l.trimStart().startsWith(`${v.name} `));
        assert.ok(line, `${v.name} is listed`);
        assert.ok(line.endsWith(`(default: ${v.fallback})`), `${v.name} shows its default: ${line}`);
      }
      // The defaults are the ones the server applies, not a copy that could drift.
      assert.match(res.stdout, /VIDGEN_DATA_DIR .*\(default: \.\/data\)/);
      assert.match(res.stdout, /PORT .*\(default: 8080\)/);
      assert.match(res.stdout, /VIDGEN_RETENTION_SECONDS .*\(default: 86400\)/);
      assert.doesNotMatch(res.stdout + res.stderr, /vidgen is running|No API key existed/);
      await nothingWritten();
    }
  });

  it('--version prints the version and starts nothing', async () => {
    const res = await server(['--version']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `vidgen-server ${serverPackage.version}\n`);
    await nothingWritten();
  });

  it('refuses an unknown option, command or role with a guess and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--hepl'], /unknown option '--hepl'\. Did you mean '--help'\?/],
      [['--verison'], /unknown option '--verison'\. Did you mean '--version'\?/],
      [['kyes', 'list'], /unknown command 'kyes'\. Did you mean 'keys'\?/],
      [['serve'], /unknown command 'serve'\./],
      [['--role', 'wrker'], /--role must be all, api or worker, got 'wrker'/],
      [['keys', 'lst'], /unknown keys command 'lst'\. Did you mean 'list'\?/],
      [
        ['keys', 'create', '--account', 'a', '--model', 'video-v1-5s'],
        /unknown option '--model'\. Did you mean '--models'\?/,
      ],
      [['accounts', 'creat', 'a'], /unknown accounts command 'creat'\. Did you mean 'create'\?/],
    ];
    for (const [args, message] of cases) {
      const res = await server(args);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, message);
      assert.equal(res.stdout, '');
      await nothingWritten();
    }
  });

  it('prints the help of each operator command without opening a database', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['keys', '--help'], /usage: vidgen-server keys create --account <name> \[--models <id,id>\]/],
      [['keys', 'create', '--help'], /VIDGEN_DATA_DIR or\nVIDGEN_DATABASE_URL as the server/],
      [['help', 'keys'], /vidgen-server keys revoke <key-id>/],
      [['accounts', '--help'], /vidgen-server accounts set <id>/],
      [['credits', '-h'], /vidgen-server credits grant\|deduct <id> <ticks>/],
      [['ledger', '--help'], /vidgen-server ledger verify \| list/],
    ];
    for (const [args, usage] of cases) {
      const res = await server(args);
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stdout, usage);
      await nothingWritten();
    }
  });

  it('keys create --models refuses an id the catalog does not have, naming it and the valid ids, and writes nothing', async () => {
    const res = await server(['keys', 'create', '--account', 'team', '--models', 'video-v1-5s,nope,video-v1-5']);
    assert.equal(res.code, 2, res.stderr);
    assert.equal(res.stdout, '', 'no key is printed');
    assert.match(res.stderr, /unknown models 'nope', 'video-v1-5' \(did you mean 'video-v1-5s'\?\) in --models/);
    assert.match(
      res.stderr,
      new RegExp(`The built-in catalog offers: ${defaultModels.models.map((m) => m.id).join(', ')}`),
    );
    await nothingWritten();
    const accounts = await server(['accounts', 'create', 'team', '--models', 'nope']);
    assert.equal(accounts.code, 2, accounts.stderr);
    assert.match(accounts.stderr, /unknown model 'nope'/);
    await nothingWritten();
  });

  it('checks --models against VIDGEN_MODELS_FILE when it is set, and turns an alias into its id', async () => {
    const catalogDir = await mkdtemp(join(tmpdir(), 'vidgen-server-cli-models-'));
    const modelsFile = join(catalogDir, 'models.json');
    await writeFile(
      modelsFile,
      JSON.stringify({
        models: [{ id: 'house-5s', aliases: ['house'], family: 'B', backend: 'renderer', durations: [5] }],
      }),
    );
    const dataOfFile = join(catalogDir, 'data');
    try {
      const env = { VIDGEN_MODELS_FILE: modelsFile, VIDGEN_DATA_DIR: dataOfFile };
      const refused = await server(['keys', 'create', '--account', 'house', '--models', 'video-v1-5s'], env);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        new RegExp(
          `unknown model 'video-v1-5s' in --models\\. The catalog in ${modelsFile.replace(/[.\\/]/g, '\\$&')} offers: house-5s`,
        ),
      );
      assert.ok(!existsSync(dataOfFile), 'nothing written');
      const created = await server(['keys', 'create', '--account', 'house', '--models', 'house'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stderr, /'house' is an alias of 'house-5s'/);
      assert.match((await server(['keys', 'list'], env)).stdout, /\thouse\t.*\thouse-5s\n/);
    } finally {
      await rm(catalogDir, { recursive: true, force: true });
    }
  });

  it('says how an existing account’s models change, and lists keys under a header with their models', async () => {
    const first = await server(['keys', 'create', '--account', 'team', '--models', 'video-v1-5s']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^vg-[A-Za-z0-9_-]{43}\n$/, 'stdout is the key, and only the key');
    assert.match(first.stderr, /created account 'team' with models: video-v1-5s/);
    assert.match(
      first.stderr,
      new RegExp(`in ${join(dataDir, 'vidgen.db').replace(/[.\\/]/g, '\\$&')};`),
      'names the database it wrote',
    );
    const widened = await server(['keys', 'create', '--account', 'team', '--models', 'video-v1-5s,video-v1-10s']);
    assert.equal(widened.code, 0, widened.stderr);
    assert.match(widened.stderr, /changed the models of account 'team': video-v1-5s → video-v1-5s,video-v1-10s/);
    const same = await server(['keys', 'create', '--account', 'team']);
    assert.match(same.stderr, /account 'team' keeps its models: video-v1-5s,video-v1-10s/);
    const everything = await server(['keys', 'create', '--account', 'open']);
    assert.match(everything.stderr, /created account 'open' with models: every model/);

    const listed = await server(['keys', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.deepEqual(header, ['KEY ID', 'ACCOUNT', 'PREFIX', 'CREATED', 'STATE', 'MODELS']);
    assert.equal(rows.length, 4);
    for (const row of rows) assert.equal(row.length, header.length);
    assert.deepEqual(rows.map((r) => [r[1], r[4], r[5]]).sort(), [
      ['open', 'active', 'every model'],
      ['team', 'active', 'video-v1-5s,video-v1-10s'],
      ['team', 'active', 'video-v1-5s,video-v1-10s'],
      ['team', 'active', 'video-v1-5s,video-v1-10s'],
    ]);
    assert.ok(
      rows.every((r) => !listed.stdout.includes(first.stdout.trim()) && r[2].endsWith('…')),
      'keys are never shown again',
    );

    const narrowed = await server(['accounts', 'set', 'team', '--models', 'video-v1-10s']);
    assert.equal(narrowed.code, 0, narrowed.stderr);
    assert.match(narrowed.stderr, /changed the models of account 'team': video-v1-5s,video-v1-10s → video-v1-10s/);
    assert.deepEqual(JSON.parse(narrowed.stdout).models, ['video-v1-10s']);
  });
});

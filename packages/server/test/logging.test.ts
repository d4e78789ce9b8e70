import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnInGroup } from '../../../test/e2e/support/process-groups.ts';
import { fileURLToPath } from 'node:url';
import { collectOutput } from '../../../test/e2e/support/process.ts';

const LOGGING = fileURLToPath(new URL('../src/logging.ts', import.meta.url));

// The service logs to stdout in batches of bytes (logging.ts): whatever the lines hold and however
// they fall across batches, a reader gets every line whole, in order, by the time the process exits.
describe('stdout log', () => {
  it('writes every line whole and in order: multi-byte text, lines larger than a batch, many batches', async () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(LOGGING)});
      const log = createLogger('info');
      log.info({ text: 'é→🎬'.repeat(2000) }, 'wide');
      log.info({ text: 'x'.repeat(100_000) }, 'large');
      for (let i = 0; i < 3000; i++) log.info({ i }, 'line');
      log.info('last');
    `;
    const child = spawnInGroup(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { code, stdout, stderr } = await collectOutput(child);
    assert.equal(code, 0, stderr);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['wide', 'large', ...Array(3000).fill('line'), 'last'],
    );
    assert.equal(lines[0].text, 'é→🎬'.repeat(2000));
    assert.equal(lines[1].text.length, 100_000);
    assert.deepEqual(
      lines.slice(2, -1).map((l) => l.i),
      [...Array(3000).keys()],
    );
  });
});

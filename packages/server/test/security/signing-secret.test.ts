import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSigningSecret } from '../../src/security/signing-secret.ts';

// Invariant 9, docs/architecture.md: a fault names its cause. A data dir on a read-only mount
// (EROFS stops root too, unlike a chmod) cannot take a new signing secret: say so, not ENOENT.
describe('loadSigningSecret on a read-only data dir', () => {
  let dir: string;
  let skip: string | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-ro-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', dir], { stdio: 'pipe' });
    } catch (err) {
      skip = `a read-only tmpfs cannot be mounted here (${String((err as Error).message).split('\n')[0]}); needs root`;
    }
  });
  after(async () => {
    if (!skip) execFileSync('umount', [dir]);
    await rm(dir, { recursive: true, force: true });
  });

  it('names the read-only data dir, not a missing file', async (t) => {
    if (skip) return t.skip(skip);
    await assert.rejects(loadSigningSecret(undefined, dir), (err: Error) => {
      assert.match(err.message, /the data dir is read-only/);
      assert.match(err.message, /VIDGEN_SIGNING_SECRET/);
      assert.doesNotMatch(err.message, /ENOENT/);
      return true;
    });
  });
});

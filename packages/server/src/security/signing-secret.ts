import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The HMAC secret for download links. Scale-out deployments set VIDGEN_SIGNING_SECRET so all
 * API processes agree; the embedded default keeps one in the data dir, created on first start.
 */
export async function loadSigningSecret(configured: string | undefined, dataDir: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  const path = join(dataDir, 'signing.key');
  try {
    return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(32);
  // 'wx' fails if another process created it in the meantime; then read theirs.
  try {
    await writeFile(path, secret.toString('base64url'), { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Only a file another process made in the meantime is read back; any other failure (a read-only
    // or full data dir, no permission) is the cause, and is named as it is, not as a missing file.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      const why = code === 'EROFS' ? 'the data dir is read-only' : `it could not be written (${code})`;
      throw new Error(
        `The signing secret ${path} does not exist and ${why}: make VIDGEN_DATA_DIR writable, or set ` +
          'VIDGEN_SIGNING_SECRET.',
        { cause: err },
      );
    }
    return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
  }
}

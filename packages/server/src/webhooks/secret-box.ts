import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Webhook secrets must be readable again to sign, so they are encrypted, not hashed: AES-256-GCM
 * with a key derived from the server's signing secret (one secret for the operator to keep, and
 * a database dump alone does not reveal them).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), 'vidgen webhook secrets v1', 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, sealed, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, data, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || data === undefined || !tag) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

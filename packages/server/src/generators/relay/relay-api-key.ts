import { inspect } from 'node:util';

/**
 * An upstream API key that cannot leak by accident: it prints, logs and serialises as
 * `[redacted]`, so a config object or channel can be logged whole. Only `header()` reveals it.
 */
export class RelayApiKey {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /**
   * The `Authorization` header value sent to the channel's own origin, and nowhere else (fal uses the `Key` scheme).
   */
  header(scheme: 'Bearer' | 'Key' = 'Bearer'): string {
    return `${scheme} ${this.#value}`;
  }

  /** The header that carries the key: `Authorization` with a scheme, or Google's own `x-goog-api-key`. */
  headers(scheme: 'Bearer' | 'Key' | 'x-goog-api-key' = 'Bearer'): Record<string, string> {
    return scheme === 'x-goog-api-key' ? { 'x-goog-api-key': this.#value } : { authorization: this.header(scheme) };
  }

  /** True when `text` contains the key (used to keep it out of messages). */
  occursIn(text: string): boolean {
    return this.#value.length > 0 && text.includes(this.#value);
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'RelayApiKey([redacted])';
  }
}

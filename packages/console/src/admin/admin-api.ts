import { VidgenClient } from '@vidgen/client';

const TOKEN = 'vidgen.admin.token';

/** The admin token, in this tab's sessionStorage only: never localStorage, a cookie or a URL. */
export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  try {
    sessionStorage.setItem(TOKEN, token);
  } catch {
    /* storage disabled: the console works until the tab closes */
  }
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN);
  } catch {
    /* nothing was kept */
  }
}

type Query = Record<string, string | number | undefined>;

/**
 * The admin API through the SDK's transport: the same time-outs, retries and typed errors as every
 * SDK call, with the admin token as the Bearer key. Paths are relative to the page's base, so a
 * proxy may serve vidgen under a prefix.
 */
export class AdminApi {
  private readonly client: VidgenClient;
  constructor(token: string) {
    this.client = new VidgenClient({ baseURL: new URL('.', document.baseURI).href, apiKey: token, maxRetries: 1 });
  }

  async get<T = any>(path: string, query: Query = {}): Promise<T> {
    const clean = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''));
    return (await this.client.transport.request<T>({ method: 'GET', path, query: clean as Query })).data;
  }

  async send<T = any>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, key?: string): Promise<T> {
    const headers = key ? { 'idempotency-key': key } : undefined;
    return (await this.client.transport.request<T>({ method, path, body, headers })).data;
  }

  /** Text answers (the usage CSV), fetched with the token and handed over as a Blob. */
  async blob(path: string, query: Query): Promise<Blob> {
    const clean = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
    const { response } = await this.client.transport.request<unknown>({
      method: 'GET',
      path,
      query: clean as Query,
      raw: true,
    });
    return response.blob();
  }
}

/**
 * The ComfyUI hosts and their slots. A slot is one prompt we keep on a host at a time; more
 * slots than the host runs at once only pre-load its queue. Shared by every model that renders
 * on these hosts, so two models cannot overfill one GPU between them.
 */
import { ComfyUiClient, type ComfyUiClientOptions } from './comfyui-client.ts';
import { FAILURES } from '../../domain/task-failure.ts';

export interface ComfyUiHostConfig {
  /** Short name, stored in task checkpoints and shown in logs instead of the URL. */
  name: string;
  url: string;
  /** Prompts at a time on this host; 1 by default. */
  slots?: number;
  headers?: Record<string, string>;
}

export interface ComfyUiHostPoolOptions extends Omit<ComfyUiClientOptions, 'headers'> {
  /** How long a host that failed is passed over while others are free. */
  cooldownMs?: number;
  clock?: () => number;
}

export interface HostSlot {
  host: string;
  client: ComfyUiClient;
  /** Gives the slot back; safe to call more than once. */
  release(): void;
}

/** One host as this process sees it: its cooldown and busy slots live in this process alone. */
export interface ComfyUiHostStatus {
  name: string;
  slots: number;
  /** Slots this process holds on it now. */
  busy: number;
  /** Until when this process passes it over after a failure (epoch ms); null: not cooling down. */
  coolingDownUntil: number | null;
}

interface HostState {
  name: string;
  client: ComfyUiClient;
  slots: number;
  busy: number;
  unhealthyUntil: number;
}

interface Waiter {
  fits(h: HostState): boolean;
  grant(h: HostState): void;
}

export class ComfyUiHostPool {
  private readonly hosts: HostState[];
  private readonly waiters: Waiter[] = [];
  private readonly cooldownMs: number;
  private readonly clock: () => number;

  constructor(hosts: ComfyUiHostConfig[], options: ComfyUiHostPoolOptions = {}) {
    if (hosts.length === 0) throw new Error('ComfyUI: at least one host is needed');
    const names = new Set<string>();
    this.hosts = hosts.map((h) => {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(h.name))
        throw new Error(`ComfyUI host name "${h.name}" must be a plain identifier`);
      if (names.has(h.name)) throw new Error(`ComfyUI host name "${h.name}" is used twice`);
      names.add(h.name);
      const slots = h.slots ?? 1;
      if (!Number.isInteger(slots) || slots < 1)
        throw new Error(`ComfyUI host ${h.name}: slots must be a whole number >= 1`);
      const client = new ComfyUiClient(h.name, h.url, { ...options, headers: h.headers });
      return { name: h.name, client, slots, busy: 0, unhealthyUntil: 0 };
    });
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.clock = options.clock ?? Date.now;
  }

  get names(): string[] {
    return this.hosts.map((h) => h.name);
  }

  slotsOf(names?: readonly string[]): number {
    return this.hosts.filter((h) => !names || names.includes(h.name)).reduce((n, h) => n + h.slots, 0);
  }

  /** Every host, in config order, as this process sees it now. */
  status(): ComfyUiHostStatus[] {
    const now = this.clock();
    return this.hosts.map((h) => ({
      name: h.name,
      slots: h.slots,
      busy: h.busy,
      coolingDownUntil: h.unhealthyUntil > now ? h.unhealthyUntil : null,
    }));
  }

  has(name: string): boolean {
    return this.hosts.some((h) => h.name === name);
  }

  /** A slot on the least busy of the allowed hosts (healthy ones first), waiting for one to free up. */
  acquire(signal: AbortSignal, allowed?: readonly string[]): Promise<HostSlot> {
    return this.wait(signal, (h) => !allowed || allowed.includes(h.name));
  }

  /** A slot on one named host, where a prompt to re-attach to lives. */
  acquireOn(name: string, signal: AbortSignal): Promise<HostSlot> {
    return this.wait(signal, (h) => h.name === name);
  }

  /** Passes a host over for a while after it failed, so one dead GPU does not attract every task. */
  markFailed(name: string): void {
    const h = this.hosts.find((x) => x.name === name);
    if (h) h.unhealthyUntil = this.clock() + this.cooldownMs;
  }

  markHealthy(name: string): void {
    const h = this.hosts.find((x) => x.name === name);
    if (h) h.unhealthyUntil = 0;
  }

  private wait(signal: AbortSignal, allowed: (h: HostState) => boolean): Promise<HostSlot> {
    if (signal.aborted) return Promise.reject(FAILURES.canceled());
    const candidates = this.hosts.filter(allowed);
    if (candidates.length === 0) return Promise.reject(new Error('ComfyUI: no configured host matches'));
    const free = this.best(candidates);
    if (free) return Promise.resolve(this.take(free));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(FAILURES.canceled());
      };
      const waiter: Waiter = {
        fits: allowed,
        grant: (h) => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.take(h));
        },
      };
      this.waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private best(candidates: HostState[]): HostState | undefined {
    const now = this.clock();
    const free = candidates.filter((h) => h.busy < h.slots);
    const score = (h: HostState) => (h.unhealthyUntil > now ? 1 : 0) * 1e6 + h.busy / h.slots;
    return free.sort((a, b) => score(a) - score(b))[0];
  }

  private take(h: HostState): HostSlot {
    h.busy++;
    let released = false;
    return {
      host: h.name,
      client: h.client,
      release: () => {
        if (released) return;
        released = true;
        h.busy--;
        this.handOver(h);
      },
    };
  }

  /** First come, first served: the longest waiter that can use this host gets the freed slot. */
  private handOver(h: HostState): void {
    const i = this.waiters.findIndex((w) => w.fits(h));
    if (i < 0 || h.busy >= h.slots) return;
    const [waiter] = this.waiters.splice(i, 1);
    waiter.grant(h);
  }
}

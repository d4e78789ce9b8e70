import assert from 'node:assert/strict';
import type { ReceivedSpan } from '../../../packages/server/test/support/otlp-receiver.ts';

/** A caller's W3C trace context, as a client with its own tracing sends it. */
export const CALLER = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'caller=t61rcWkgMzE',
};

/** The spans of one trace, looked up by name and by id. */
export class Trace {
  readonly byId: Map<string, ReceivedSpan>;

  constructor(readonly spans: ReceivedSpan[]) {
    this.byId = new Map(spans.map((s) => [s.spanId, s]));
  }

  named(name: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.name === name);
  }

  /** The one span of that name (fails when there is none, or more than one). */
  one(name: string): ReceivedSpan {
    const found = this.named(name);
    assert.equal(found.length, 1, `one span named ${name}, got ${found.length}: ${this.describe()}`);
    return found[0];
  }

  parentOf(span: ReceivedSpan): ReceivedSpan | undefined {
    return this.byId.get(span.parentSpanId);
  }

  /** Asserts `child`'s parent is `parent`. */
  assertChild(child: ReceivedSpan, parent: ReceivedSpan): void {
    assert.equal(
      child.parentSpanId,
      parent.spanId,
      `${child.name} is a child of ${parent.name}, not of ${this.parentOf(child)?.name ?? child.parentSpanId}`,
    );
  }

  /**
   * Every span's parent is in the trace, but for the roots, whose parent is `rootParent`. A parent is
   * exported when it ends, after its children: a trace still being made is not linked yet.
   */
  linked(rootParent: string): boolean {
    return this.spans.every((s) => this.byId.has(s.parentSpanId) || s.parentSpanId === rootParent);
  }

  /** Every span's parent is in the trace, but for the roots, whose parent must be `rootParent`. */
  assertLinked(rootParent: string): void {
    for (const span of this.spans) {
      if (this.byId.has(span.parentSpanId)) continue;
      assert.equal(span.parentSpanId, rootParent, `${span.name}'s parent ${span.parentSpanId} is not in the trace`);
    }
  }

  describe(): string {
    return this.spans.map((s) => `${s.name}(${s.spanId}<-${s.parentSpanId})`).join(' ');
  }
}

/** The trace `traceId` as received so far. */
export function traceOf(spans: ReceivedSpan[], traceId: string): Trace {
  return new Trace(spans.filter((s) => s.traceId === traceId));
}

/** No attribute of any span, nor any resource attribute, contains one of `secrets`. */
export function assertNoSecrets(spans: ReceivedSpan[], secrets: string[]): void {
  for (const span of spans)
    for (const [key, value] of Object.entries({ ...span.attributes, ...span.resource }))
      for (const secret of secrets)
        assert.ok(!String(value).includes(secret), `${span.name}'s ${key} carries a secret: ${String(value)}`);
}

/** `00-<trace>-<span>-<flags>` as its parts. */
export function parseTraceparent(header: string | string[] | undefined): { traceId: string; spanId: string } {
  assert.equal(typeof header, 'string', `a traceparent header, got ${String(header)}`);
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header as string);
  assert.ok(match, `a W3C traceparent, got ${String(header)}`);
  return { traceId: match[1], spanId: match[2] };
}

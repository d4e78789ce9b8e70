import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { ReadBuffers } from '../../src/api/content/read-buffers.ts';

const response = () => new EventEmitter() as unknown as ServerResponse;

describe('read buffers of downloads', () => {
  it('reuses a buffer only once its response has finished', () => {
    const buffers = new ReadBuffers();
    const first = response();
    const a = buffers.take(100_000, first);
    const b = buffers.take(100_000, response());
    assert.notEqual(a, b, 'two downloads in flight never share a buffer');
    assert.ok(a.length >= 100_000);
    first.emit('finish');
    assert.equal(buffers.take(90_000, response()), a, 'a finished download gives its buffer back');
  });

  it('never reuses the buffer of a response that ended without finishing', () => {
    const buffers = new ReadBuffers();
    const aborted = response();
    const a = buffers.take(100_000, aborted);
    aborted.emit('close');
    assert.notEqual(buffers.take(100_000, response()), a);
  });

  it('keeps a bounded number of bytes', () => {
    const buffers = new ReadBuffers();
    const finished = Array.from({ length: 40 }, () => response());
    const taken = finished.map((r) => buffers.take(1024 * 1024, r));
    for (const r of finished) r.emit('finish');
    const again = new Set(Array.from({ length: 40 }, () => buffers.take(1024 * 1024, response())));
    assert.equal(
      taken.filter((b) => again.has(b)).length,
      16,
      '16 MiB of 1 MiB buffers kept, the rest left to the collector',
    );
  });
});

describe("the premise: a response's `finish` comes after the socket has taken every byte", () => {
  it('holds back finish while the client does not read, and sends the bytes as they were at end()', async () => {
    const { createServer } = await import('node:http');
    const { connect } = await import('node:net');
    const body = Buffer.alloc(32 * 1024 * 1024, 1); // far more than loopback socket buffers hold
    let finished = false;
    const server = createServer((_req, res) => {
      res.on('finish', () => {
        finished = true;
        body.fill(2); // what a reused buffer would do: too late to change what was sent
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(finished, false, 'bytes still waiting for the client: the buffer is still in use');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.resume();
    await new Promise((r) => socket.on('end', r));
    server.close();
    assert.equal(finished, true);
    const received = Buffer.concat(chunks);
    const payload = received.subarray(received.indexOf('\r\n\r\n') + 4);
    assert.equal(payload.length, body.length);
    assert.ok(
      payload.every((b) => b === 1),
      'every byte as it was when the answer was handed over',
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/logging.ts';
import { RequestLogger } from '../../src/api/request-logger.ts';

// The request's logger is made when the request first logs (api/request-logger.ts); what it
// writes must be what the pino child it stands for writes.
describe('request logger', () => {
  function capture() {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    let children = 0;
    const parent = new Proxy(logger, {
      get: (target, name, receiver) =>
        name === 'child'
          ? (...args: Parameters<typeof logger.child>) => (children++, target.child(...args))
          : Reflect.get(target, name, receiver),
    });
    return { lines, parent, children: () => children };
  }

  it('makes no child logger for a request that logs nothing', () => {
    const { parent, children } = capture();
    const quiet = new RequestLogger(parent, { reqId: 'req-1' }, {});
    assert.equal(quiet.level, 'info');
    assert.equal(children(), 0);
    quiet.info('now it logs');
    assert.equal(children(), 1);
  });

  it('writes what the pino child would, once per request, with its bindings', () => {
    const { lines, parent, children } = capture();
    const log = new RequestLogger(parent, { reqId: 'req-3' }, {});
    log.warn({ code: 'x' }, 'first');
    log.error(new Error('boom'), 'second %s', 'formatted');
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map((l) => [l.level, l.reqId, l.msg]),
      [
        [40, 'req-3', 'first'],
        [50, 'req-3', 'second formatted'],
      ],
    );
    assert.equal(lines[0].code, 'x');
    assert.equal((lines[1].err as { message: string }).message, 'boom');
    const nested = log.child({ step: 'inner' });
    nested.info('third');
    assert.deepEqual([lines[2].reqId, lines[2].step], ['req-3', 'inner']);
  });
});

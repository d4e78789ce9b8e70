import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startTestService } from './support/service.ts';

interface Family {
  name: string;
  type: string;
  help: string | undefined;
  samples: string[];
}

/** The exposition text as metric families (`# HELP`, `# TYPE`, then samples). */
function parse(text: string): Family[] {
  const families = new Map<string, Family>();
  const family = (name: string) =>
    families.get(name) ?? families.set(name, { name, type: 'untyped', help: undefined, samples: [] }).get(name)!;
  let last: Family | undefined;
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      last = family(meta[2]);
      if (meta[1] === 'TYPE') last.type = meta[3];
      else last.help = meta[3];
    } else if (line.trim() && last) {
      last.samples.push(line.split(/[{ ]/)[0]);
    }
  }
  return [...families.values()];
}

/** The rules of `promtool check metrics` (client_golang's promlint) that names can break, plus our prefix rule. */
function problems(families: Family[]): string[] {
  const found: string[] = [];
  const abbreviated = new Set([
    's',
    'ms',
    'us',
    'ns',
    'sec',
    'b',
    'kb',
    'mb',
    'gb',
    'kib',
    'mib',
    'gib',
    'percent',
    'pct',
    'milliseconds',
    'microseconds',
    'nanoseconds',
    'minutes',
    'hours',
    'days',
    'kilobytes',
    'megabytes',
    'gigabytes',
    'celsius',
  ]);
  for (const f of families) {
    const say = (what: string) => found.push(`${f.name}: ${what}`);
    if (!/^[a-z_][a-z0-9_]*$/.test(f.name)) say('not snake_case');
    if (!f.name.startsWith('vidgen_')) say('lacks the vidgen_ prefix');
    const parts = f.name.split('_');
    if (parts.some((p, i) => i > 0 && p === parts[i - 1])) say('doubled word (a prefix applied twice?)');
    if (f.type === 'counter' && !f.name.endsWith('_total')) say('counter without _total');
    if (f.type !== 'counter' && f.name.endsWith('_total')) say(`${f.type} with _total (reserved for counters)`);
    if (!['histogram', 'summary'].includes(f.type) && /_(count|sum|bucket)$/.test(f.name))
      say(`${f.type} with a histogram suffix`);
    if (!f.help) say('no help text');
    for (const part of parts) if (abbreviated.has(part)) say(`unit '${part}': use base units (seconds, bytes, ratios)`);
  }
  return found;
}

// Metric names follow Prometheus' conventions. `promtool check metrics` runs too where it is
// installed; it is not a dependency (Debian's package is 96 MB and ships a server).
it('serves metric names that pass the rules of promtool check metrics', async () => {
  const svc = await startTestService();
  try {
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    const families = parse(text);
    assert.ok(families.length > 20, `parsed ${families.length} metric families`);
    assert.deepEqual(problems(families), []);
    for (const name of [
      'vidgen_process_cpu_seconds_total',
      'vidgen_claims_total',
      'vidgen_queue_depth',
      'vidgen_nodejs_eventloop_lag_seconds',
    ]) {
      assert.ok(
        families.some((f) => f.name === name),
        `${name} is exposed`,
      );
    }
    // The rules themselves catch what they are for.
    assert.equal(
      problems(parse('# HELP vidgen_process_process_x_total x\n# TYPE vidgen_process_process_x_total counter\n'))
        .length,
      1,
    );
    assert.equal(problems(parse('# HELP vidgen_active_total x\n# TYPE vidgen_active_total gauge\n')).length, 1);
    let promtool: string | undefined;
    try {
      promtool = execFileSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim();
    } catch {
      promtool = undefined;
    }
    if (promtool) execFileSync(promtool, ['check', 'metrics'], { input: text });
  } finally {
    await svc.close();
  }
});

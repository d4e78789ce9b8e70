import { createHash } from 'node:crypto';
import { CompiledQuery, type Compilable } from 'kysely';

/**
 * The text of every statement built once here, with a name for it: where the database keeps
 * prepared statements (PostgreSQL), these are prepared once per connection and run by name, so
 * the server neither parses nor plans them again. The set is small and fixed: the texts are
 * built by code at start, values are parameters.
 */
const reusableNames = new Map<string, string>();

/** The prepared statement's name for a text built once here, or undefined for any other statement. */
export function reusableName(text: string): string | undefined {
  return reusableNames.get(text);
}

function remember(text: string): string {
  if (!reusableNames.has(text))
    reusableNames.set(text, `vidgen_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`);
  return text;
}

/**
 * A query compiled once and run with new parameter values: for the hottest reads (every poll
 * authenticates and reads one task), building and compiling the query tree each time cost
 * as much as running it.
 */
export function reusableQuery<P extends unknown[]>(query: Compilable, arity: P['length']) {
  const text = remember(reusableSql(query, arity));
  return (...params: P): CompiledQuery => CompiledQuery.raw(text, params);
}

/** A named value of a statement built once by `reusableStatement`, given on each run. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A statement built and compiled once from a query whose varying values are named slots, run
 * with the slots' values: for the writes every task makes (its claim, attempt row and finish),
 * where building and compiling Kysely's query tree cost more than the database's own work
 * (bench/engine.bench.ts). Values written in the query itself (not slots) stay as built.
 */
export function reusableStatement<Names extends string, Row = unknown>(
  build: (slot: (name: Names) => never) => Compilable<Row>,
): (values: Record<Names, unknown>) => CompiledQuery<Row> {
  const compiled = build((name) => new Slot(name) as never).compile();
  const text = remember(compiled.sql);
  const fill = compiled.parameters.map((p) =>
    p instanceof Slot ? (values: Record<string, unknown>) => values[p.name] : () => p,
  );
  return (values) =>
    CompiledQuery.raw(
      text,
      fill.map((f) => f(values)),
    ) as CompiledQuery<Row>;
}

/** The SQL text of such a query, checked to take exactly `arity` parameters. */
export function reusableSql(query: Compilable, arity: number): string {
  const compiled = query.compile();
  if (compiled.parameters.length !== arity)
    throw new Error(`expected ${arity} parameters, the query has ${compiled.parameters.length}`);
  return compiled.sql;
}

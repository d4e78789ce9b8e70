import { CompiledQuery, type Compilable } from 'kysely';

/**
 * A query compiled once and run with new parameter values: for the hottest reads (every poll
 * authenticates and reads one task), building and compiling the query tree each time cost
 * as much as running it.
 */
export function reusableQuery<P extends unknown[]>(query: Compilable, arity: P['length']) {
  const text = reusableSql(query, arity);
  return (...params: P): CompiledQuery => CompiledQuery.raw(text, params);
}

/** The SQL text of such a query, checked to take exactly `arity` parameters. */
export function reusableSql(query: Compilable, arity: number): string {
  const compiled = query.compile();
  if (compiled.parameters.length !== arity) throw new Error(`expected ${arity} parameters, the query has ${compiled.parameters.length}`);
  return compiled.sql;
}

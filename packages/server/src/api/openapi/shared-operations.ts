type Operation = Record<string, unknown> & {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ in: string; name: string }>;
  responses?: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>;
};
type Paths = Record<string, Record<string, Operation>>;

/** Where a route taken only by one dialect's requests (api/dialect-claims.ts) is kept until merged. */
export const CLAIMED_SUFFIX = '#claimed';

/**
 * One path and method is one operation in OpenAPI, and paths that differ only in a parameter's
 * name are one path. Routes that two dialects share (the second under a dialect constraint,
 * collected at `<path>#claimed`) become one operation: the first route's id, both summaries,
 * both query parameters, and each answer as `anyOf` the two. Other operations on the same
 * path shape move to the first path, their path parameters renamed to its.
 */
export function mergeClaimedOperations(paths: Paths): Paths {
  const shape = (path: string) => path.replace(CLAIMED_SUFFIX, '').replace(/\{[^}]+\}/g, '{}');
  // Unclaimed routes first: theirs are the path's name and the operations' ids.
  const order = Object.keys(paths).sort(
    (a, b) => Number(a.endsWith(CLAIMED_SUFFIX)) - Number(b.endsWith(CLAIMED_SUFFIX)),
  );
  const kept = new Map<string, string>();
  for (const path of order) {
    const target = kept.get(shape(path));
    if (target === undefined && !path.endsWith(CLAIMED_SUFFIX)) {
      kept.set(shape(path), path);
      continue;
    }
    const into = target ?? path.slice(0, -CLAIMED_SUFFIX.length);
    if (target === undefined) kept.set(shape(path), into);
    const ops = paths[path];
    delete paths[path];
    paths[into] ??= {};
    for (const [method, op] of Object.entries(ops)) {
      const base = paths[into][method];
      paths[into][method] = base ? mergeOperation(base, op) : { ...op, parameters: renamePathParams(op, into) };
    }
  }
  return paths;
}

function renamePathParams(op: Operation, path: string): Operation['parameters'] {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  let i = 0;
  return op.parameters?.map((p) => (p.in === 'path' ? { ...p, name: names[i++] ?? p.name } : p));
}

function mergeOperation(base: Operation, other: Operation): Operation {
  const params = [...(base.parameters ?? [])];
  for (const p of other.parameters ?? [])
    if (p.in !== 'path' && !params.some((q) => q.in === p.in && q.name === p.name)) params.push(p);
  const responses = { ...base.responses };
  for (const [code, answer] of Object.entries(other.responses ?? {})) {
    const mine = responses[code];
    if (!mine) {
      responses[code] = answer;
      continue;
    }
    const content = { ...mine.content };
    for (const [type, media] of Object.entries(answer.content ?? {})) {
      const own = content[type];
      const same = own && JSON.stringify(own.schema) === JSON.stringify(media.schema);
      content[type] = own && !same ? { schema: { anyOf: [own.schema, media.schema] } } : media;
    }
    const description =
      mine.description === answer.description ? mine.description : `${mine.description}; or ${answer.description}`;
    responses[code] = { ...mine, description, content };
  }
  return {
    ...base,
    summary: `${base.summary}; or ${other.summary}`,
    tags: [...new Set([...(base.tags ?? []), ...(other.tags ?? [])])],
    parameters: params,
    responses,
  };
}

#!/usr/bin/env node
// `npm run check -- layers`: the server's folders form layers (docs/architecture.md, "Layers"), and an
// import may only point down or sideways. dpdm already fails on circles; this fails on an import that
// points up, which is how circles start. Imports are read as text: a relative specifier in an
// `import`/`export … from` or a dynamic `import()`, type-only imports included (a type that points up
// ties the layers as surely as a value does).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

const SRC = 'packages/server/src';
// Lowest first. A top-level folder, a file of the source root without its extension, or a subfolder
// placed apart from its folder (the longest match decides): tracing's interface is used by every
// layer, while the rest of observability (Prometheus metrics) implements ports of engine and webhooks.
const LAYERS = [
  ['domain', 'errors', 'logging', 'observability/tracing'],
  ['media', 'blobs', 'catalog'],
  ['store'],
  ['security'],
  ['generators'],
  ['engine'],
  ['billing', 'webhooks'],
  ['api', 'observability'],
  ['app', 'openapi-document'],
  ['composition', 'main', 'cli', 'config'],
];
const RANK = new Map(LAYERS.flatMap((names, rank) => names.map((name) => [name, rank])));

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mts)$/.test(name) ? [path] : [];
  });
}

/** The layer unit of a path inside SRC: a subfolder given its own layer, its top-level folder, or its file name at the root. */
function unitOf(path) {
  const parts = relative(SRC, path).split(sep);
  const [first, ...rest] = parts;
  if (rest.length > 1 && RANK.has(`${first}/${rest[0]}`)) return `${first}/${rest[0]}`;
  return rest.length > 0 ? first : first.replace(/\.[cm]?ts$|\.json$/, '');
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
const upward = [];
const unknown = new Set();
for (const file of files(SRC)) {
  const from = unitOf(file);
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = normalize(join(dirname(file), match[1]));
    if (!target.startsWith(normalize(SRC) + sep)) continue;
    const to = unitOf(target);
    if (to === from) continue;
    for (const unit of [from, to]) if (!RANK.has(unit)) unknown.add(unit);
    if (RANK.get(to) > RANK.get(from))
      upward.push(`${relative(SRC, file)} → ${match[1]} (${from} imports ${to}, a higher layer)`);
  }
}
if (unknown.size > 0) {
  console.error(`layers: no layer for ${[...unknown].join(', ')}: give each a place in scripts/check-layers.mjs`);
  process.exit(1);
}
if (upward.length > 0) {
  console.error(`layers: ${upward.length} import(s) point up:\n  ${upward.join('\n  ')}`);
  process.exit(1);
}
console.log(`layers: every import of ${SRC} points down or sideways (${LAYERS.map((l) => l.join('+')).join(' < ')})`);

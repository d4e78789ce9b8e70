#!/usr/bin/env node
// `npm run check -- lines`: no source line in packages/*/src is over 120 characters. Biome's formatter
// keeps code within its line width but never breaks a string literal or a comment, so long messages
// and comments slip past it. Data is not source: JSON files (the catalog, ComfyUI's exported
// workflows) and any file marked `@generated` in its first lines are skipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX = 120;
const SOURCE = /\.(?:ts|tsx|mts|js|mjs|cjs|css|html|md)$/;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

const packages = readdirSync('packages', { withFileTypes: true }).filter((d) => d.isDirectory());
const long = [];
for (const pkg of packages) {
  const src = join('packages', pkg.name, 'src');
  let paths;
  try {
    paths = files(src);
  } catch {
    continue;
  }
  for (const path of paths) {
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines.slice(0, 5).some((line) => line.includes('@generated'))) continue;
    lines.forEach((line, i) => {
      // Characters, not UTF-16 units: a line of `’` and `→` is as long as it looks.
      const length = [...line].length;
      if (length > MAX) long.push(`${path}:${i + 1}: ${length} characters`);
    });
  }
}
for (const line of long) console.log(line);
if (long.length > 0) {
  console.log(`${long.length} line(s) over ${MAX} characters; break the string or the comment.`);
  process.exit(1);
}

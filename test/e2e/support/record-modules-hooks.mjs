// The loader hooks of record-modules.mjs: each module loaded is appended to the file at once.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  appendFileSync(file, `${url}\n`);
  return next(url, context);
}

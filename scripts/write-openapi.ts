// Regenerates docs/openapi.json from the registered routes (their TypeBox schemas from
// packages/protocol). packages/server/test/docs/openapi-drift.test.ts fails when the file drifts.
import { writeFileSync } from 'node:fs';
import { DEFAULT_DIALECTS } from '../packages/server/src/main.ts';
import { formatOpenApi, openApiDocument } from '../packages/server/src/openapi-document.ts';

writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  formatOpenApi(await openApiDocument({ dialects: DEFAULT_DIALECTS })),
);
console.log('wrote docs/openapi.json');

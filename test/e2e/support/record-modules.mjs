// Preloaded into a spawned server (`node --import`) by tests that check what it loads: when the
// process exits, every module it loaded is listed in VIDGEN_TEST_MODULES_FILE, one per line (ES
// modules as the loader fetched them, CommonJS ones from require's cache).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.VIDGEN_TEST_MODULES_FILE;
register('./record-modules-hooks.mjs', import.meta.url, { data: { file } });
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(file, `${Object.keys(require.cache).join('\n')}\n`));

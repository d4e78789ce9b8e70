// Usage: node deploy/ci/seed-prebuild.cjs <npm-cache-dir>
// Puts the host's compiled better-sqlite3 addon into <npm-cache-dir>/_prebuilds, under the name that
// prebuild-install looks for, so `npm ci` inside the image build finds it there instead of downloading
// it from GitHub (unreachable offline) or compiling SQLite for minutes. build-image.sh offers it only
// when the host has the image's Node ABI and Debian release, as the official prebuilt binary would.
// The name comes from prebuild-install's own code, so it follows its version.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [target] = process.argv.slice(2);
const root = path.resolve(__dirname, '../..');
const addonDir = path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] }));
const addon = path.join(addonDir, 'build/Release/better_sqlite3.node');
if (!target || !fs.existsSync(addon)) {
  console.error('seed-prebuild: no compiled better-sqlite3 on the host; the image build compiles it');
  process.exit(0);
}
const pkg = require(path.join(addonDir, 'package.json'));
process.chdir(addonDir);
const prebuildDir = path.dirname(require.resolve('prebuild-install/package.json', { paths: [addonDir] }));
const rc = require(path.join(prebuildDir, 'rc'))(pkg);
const util = require(path.join(prebuildDir, 'util'));
process.env.npm_config_cache = target;
const file = util.cachedPrebuild(util.getDownloadUrl({ ...rc, pkg }));
fs.mkdirSync(path.dirname(file), { recursive: true });
execFileSync('tar', ['czf', file, '-C', addonDir, 'build/Release/better_sqlite3.node']);
console.log(`seed-prebuild: ${path.relative(target, file)}`);

import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import server from './package.json' with { type: 'json' };
import consolePkg from '../console/package.json' with { type: 'json' };
import protocol from '../protocol/package.json' with { type: 'json' };

// Every runtime dependency of the code bundled here (ours and the workspace packages it inlines).
const dependencies = [server, consolePkg, protocol].flatMap((pkg) => Object.keys(pkg.dependencies ?? {}));

// `npm start` runs this build with plain node: running the sources through tsx costs about 30 MB
// more resident memory in the server (its loader thread and transform caches) and an esbuild child
// (docs/performance.md). Dependencies stay in node_modules; only our TypeScript is bundled, the
// workspace packages too since they publish TypeScript sources. Splitting keeps every dynamic
// import a separate chunk, so what main.ts loads lazily (S3, PostgreSQL, relays) stays unloaded.
export default defineConfig({
  entry: { 'server-cli': 'src/cli/server-cli.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  dts: false,
  clean: true,
  sourcemap: true,
  outDir: 'dist',
  external: dependencies.filter((name) => !name.startsWith('@vidgen/')),
  noExternal: ['@vidgen/protocol', '@vidgen/console'],
  removeNodeProtocol: false,
  // The ComfyUI presets are read at run time next to the code that names them.
  onSuccess: () => cp('src/generators/comfyui/workflows', 'dist/workflows', { recursive: true }),
});

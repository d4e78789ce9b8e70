import { defineConfig } from 'tsup';

// The published package: ESM and CommonJS, one bundled .d.ts per entry. Shared chunks (splitting)
// keep one copy of each error class, so `instanceof` holds across `@vidgen/client` and `/node`.
export default defineConfig({
  entry: { index: 'src/index.ts', 'node/index': 'src/node/index.ts', 'cli/main': 'src/cli/main.ts' },
  format: ['esm', 'cjs'],
  target: 'node20',
  // 'node' only marks built-ins external; the browser entry imports none (the pack test bundles it for a browser).
  platform: 'node',
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: false,
  outDir: 'dist',
  tsconfig: 'tsconfig.build.json',
  // Keep `node:` specifiers: bundlers then know these modules are Node built-ins, not npm packages.
  removeNodeProtocol: false,
});

import { defineConfig } from 'tsup';

export default defineConfig({
  // `cli` is the `turnguard-probe` bin (dist/cli.js); tsup keeps its shebang and marks it executable.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // import.meta.url in the CommonJS build (the dashboard command resolves the stats CLI from it).
  shims: true,
});

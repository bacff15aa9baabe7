import { defineConfig } from 'tsup';

export default defineConfig({
  // `node` is a separate entry so the main one stays free of node:fs (R1.10).
  entry: { index: 'src/index.ts', 'node/index': 'src/node/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});

import { defineConfig } from 'tsup';

export default defineConfig({
  // `cli` is the `turnguard-stats` bin (dist/cli.js); tsup keeps its shebang.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});

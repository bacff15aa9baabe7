import { defineConfig } from 'tsup';

export default defineConfig({
  // `server` is its own entry: the scenarios and the loopback upstream without msw (R10.3).
  entry: { index: 'src/index.ts', server: 'src/server.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});

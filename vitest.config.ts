import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { WORKSPACE_SOURCES } from './test/workspace-sources.js';

export default defineConfig({
  resolve: {
    // Exact-name matches, so `@turnguard/core/node` is not read as a subpath of `@turnguard/core`.
    alias: Object.entries(WORKSPACE_SOURCES).map(([name, path]) => ({
      find: new RegExp(`^${name.replace('/', '\\/')}$`),
      replacement: fileURLToPath(new URL(path, import.meta.url)),
    })),
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20_000,
  },
});

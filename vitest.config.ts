import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from source, so a test run never depends on
// a stale dist/ (the build is checked separately by `check:package`).
const packageSources: Record<string, string> = {
  '@turnguard/core/node': 'packages/core/src/node/index.ts',
  '@turnguard/core': 'packages/core/src/index.ts',
  '@turnguard/adapter-chat': 'packages/adapter-chat/src/index.ts',
  '@turnguard/adapter-messages': 'packages/adapter-messages/src/index.ts',
  '@turnguard/adapter-responses': 'packages/adapter-responses/src/index.ts',
  '@turnguard/stats': 'packages/stats/src/index.ts',
  '@turnguard/testkit/server': 'packages/testkit/src/server.ts',
  '@turnguard/testkit': 'packages/testkit/src/index.ts',
  '@turnguard/gateway': 'apps/gateway/src/index.ts',
  '@turnguard/probe': 'apps/probe/src/index.ts',
};

export default defineConfig({
  resolve: {
    // Exact-name matches, so `@turnguard/core/node` is not read as a subpath of `@turnguard/core`.
    alias: Object.entries(packageSources).map(([name, path]) => ({
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

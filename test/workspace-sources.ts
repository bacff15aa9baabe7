/**
 * Workspace packages by import name → their source entry. Tests import them
 * from source, so a test run never depends on a stale dist/ (the build is
 * checked separately by `check:package`).
 */
export const WORKSPACE_SOURCES: Record<string, string> = {
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

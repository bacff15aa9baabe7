import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

/**
 * Bundles the child-process writer from source into one CommonJS file in a
 * temp dir (with proper-lockfile, write-file-atomic and core inlined), so the
 * multi-process tests work on a clean clone where no dist/ exists yet.
 */
export async function buildTestWorker(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'tg-stats-worker-'));
  await build({
    config: false,
    entry: { 'stats-writer': fileURLToPath(new URL('./workers/stats-writer.ts', import.meta.url)) },
    outDir,
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    dts: false,
    sourcemap: false,
    silent: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.alias = { '@turnguard/core': fileURLToPath(new URL('../../core/src/index.ts', import.meta.url)) };
    },
  });
  return join(outDir, 'stats-writer.cjs');
}

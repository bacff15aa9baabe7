import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../../scripts/bundle-from-source.mjs';

/**
 * Bundles the child-process writer from source into one CommonJS file in a
 * temp dir (with proper-lockfile, write-file-atomic and core inlined), so the
 * multi-process tests work on a clean clone where no dist/ exists yet.
 */
export async function buildTestWorker(): Promise<string> {
  return bundleFromSource({
    entryName: 'stats-writer',
    entryFile: fileURLToPath(new URL('./workers/stats-writer.ts', import.meta.url)),
    outDir: await mkdtemp(join(tmpdir(), 'tg-stats-worker-')),
    sourceRoot: fileURLToPath(new URL('../../../', import.meta.url)),
  });
}

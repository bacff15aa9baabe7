import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleFromSource } from '../../../../scripts/bundle-from-source.mjs';

/**
 * R10.3: `--mock` needs no msw. Each bin is bundled from source with every
 * module it imports kept (as Node loads them: `sideEffects` hints ignored);
 * msw, its graphql support or its @inquirer prompts in the bundle mean the
 * bin would load them at run time.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

describe.each([
  ['turnguard', 'apps/gateway/src/cli.ts'],
  ['turnguard-probe', 'apps/probe/src/cli.ts'],
])('the %s bin', (name, entry) => {
  it('loads no msw, graphql or @inquirer code', { timeout: 60_000 }, async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'tg-no-msw-'));
    const bundle = await bundleFromSource({ entryName: name, entryFile: join(ROOT, entry), outDir, sourceRoot: ROOT, keepUnusedImports: true });
    const text = await readFile(bundle, 'utf8');
    expect(text).toContain('startLoopbackUpstream');
    for (const marker of ['@mswjs/interceptors', 'node_modules/msw/', 'node_modules/graphql/', '@inquirer/']) expect(text, marker).not.toContain(marker);
  });
});

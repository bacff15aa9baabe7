/**
 * R10.3 without the network: what each published package asks npm to
 * install. No exact version in `dependencies` (a user's install then shares
 * one copy with their own tree instead of pulling a second), and msw only as
 * an optional peer of the testkit, never a dependency of anything the
 * gateway or the probe installs.
 */
import { describe, expect, it } from 'vitest';
import { PUBLISHED_DIRS, readManifest } from './packed-workspace.js';

const EXACT = /^=?v?\d+\.\d+\.\d+(?:[-+].*)?$/;

describe('published dependencies (R10.3)', () => {
  it.each(PUBLISHED_DIRS)('%s pins no exact version of a runtime dependency', (dir) => {
    const { dependencies = {} } = readManifest(dir);
    const exact = Object.entries(dependencies).filter(([, range]) => EXACT.test(range));
    expect(exact).toEqual([]);
  });

  it('msw is an optional peer of the testkit and in no package\'s dependencies', () => {
    for (const dir of PUBLISHED_DIRS) expect(readManifest(dir).dependencies ?? {}, dir).not.toHaveProperty('msw');
    const testkit = readManifest('packages/testkit');
    expect(testkit.peerDependencies?.msw).toMatch(/^\^2\./);
    expect(testkit.peerDependenciesMeta?.msw?.optional).toBe(true);
  });
});

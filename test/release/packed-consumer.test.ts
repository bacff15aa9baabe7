/**
 * R10.2–R10.4 as a user meets them: every package packed, the tarballs
 * installed with npm into a folder outside the monorepo next to the user's own
 * SDKs, then strict Node typechecks (no DOM, skipLibCheck false) under the
 * three module resolutions, one copy of each SDK, the testkit against the
 * oldest msw it claims, and the installed bins. One install, several tsc runs.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askMockGateway } from './gateway-bin.js';
import {
  PUBLISHED_DIRS,
  REPO_ROOT,
  installConsumer,
  lowestOfCaretRange,
  packWorkspace,
  readManifest,
  reinstallUserPackages,
  run,
  typecheck,
  writeTsconfig,
  type ModuleResolution,
} from './packed-workspace.js';

const SDKS = ['openai', '@anthropic-ai/sdk'] as const;
const RESOLUTIONS: ModuleResolution[] = ['bundler', 'node16', 'nodenext'];
const CONSUMER_FILES = ['program.ts', 'testkit-program.ts', 'testkit-runtime.mjs'];

const rootManifest = readManifest('.');
const testkit = readManifest('packages/testkit');
/** The peer ranges the packages publish, read from their manifests (never restated here). */
const peerRanges: Record<string, string> = {
  openai: readManifest('packages/adapter-chat').peerDependencies!.openai!,
  '@anthropic-ai/sdk': readManifest('packages/adapter-messages').peerDependencies!['@anthropic-ai/sdk']!,
  msw: testkit.peerDependencies!.msw!,
};

let workDir: string;
let consumer: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'turnguard-consumer-'));
  expect(workDir.startsWith(REPO_ROOT)).toBe(false);
  consumer = join(workDir, 'app');
  const tarballs = packWorkspace(join(workDir, 'tarballs'));
  expect(tarballs).toHaveLength(PUBLISHED_DIRS.length);
  run('mkdir', ['-p', consumer], workDir);
  // The user's own packages: the newest SDKs and msw the ranges allow, and our toolchain's TypeScript and @types/node.
  const userPackages = [
    ...Object.entries(peerRanges).map(([name, range]) => `${name}@${range}`),
    `typescript@${rootManifest.devDependencies!.typescript!}`,
    `@types/node@${rootManifest.devDependencies!['@types/node']!}`,
  ];
  installConsumer(consumer, tarballs, userPackages);
  for (const file of CONSUMER_FILES) copyFileSync(new URL(`./consumer/${file}`, import.meta.url), join(consumer, file));
}, 240_000);

afterAll(async () => {
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
}, 120_000);

describe('packed tarballs in a user project (R10.2–R10.4)', () => {
  it('every tarball carries a LICENSE and a README that opens with its install line (R10.3)', () => {
    for (const dir of PUBLISHED_DIRS) {
      const { name } = readManifest(dir);
      const installed = join(consumer, 'node_modules', name);
      expect(existsSync(join(installed, 'LICENSE')), `${name} LICENSE`).toBe(true);
      const readme = readFileSync(join(installed, 'README.md'), 'utf8');
      const beforeFirstSection = readme.split('\n## ')[0]!;
      expect(beforeFirstSection, `${name} README`).toContain(`npm install ${name}`);
    }
  });

  it("npm ls shows exactly one copy of each SDK: the user's own (R10.3)", () => {
    const tree = run('npm', ['ls', ...SDKS, '--all', '--parseable'], consumer).stdout;
    for (const sdk of SDKS) {
      const copies = tree.split('\n').filter((line) => line.endsWith(join('node_modules', sdk)));
      expect(copies, sdk).toEqual([join(consumer, 'node_modules', sdk)]);
    }
  });

  it.each(RESOLUTIONS)('runTurn, the three adapters and the stats store compile under %s, lib es2023, no DOM, skipLibCheck false (R10.2)', { timeout: 120_000 }, (resolution) => {
    expect(typecheck(consumer, writeTsconfig(consumer, resolution, resolution, ['program.ts']))).toBe('');
  });

  it("core's published types never name @opentelemetry/api, its optional peer: they compile without it (R10.2, R12.1)", () => {
    const dist = join(consumer, 'node_modules', '@turnguard/core', 'dist');
    for (const file of ['index.d.ts', 'index.d.cts']) {
      expect(readFileSync(join(dist, file), 'utf8'), file).not.toMatch(/(?:from|import\()\s*['"]@opentelemetry\//);
    }
    const { peerDependencies, peerDependenciesMeta } = readManifest('packages/core');
    expect(peerDependencies?.['@opentelemetry/api']).toMatch(/^\^1\./);
    expect(peerDependenciesMeta?.['@opentelemetry/api']?.optional).toBe(true);
  });

  it('the testkit and the apps compile with the DOM lib that msw needs (R10.2)', { timeout: 120_000 }, () => {
    const tsconfig = writeTsconfig(consumer, 'testkit', 'nodenext', ['testkit-program.ts'], ['es2023', 'dom']);
    expect(typecheck(consumer, tsconfig)).toBe('');
  });

  it('the testkit serves a scripted stream through the newest msw 2 the range allows', () => {
    const report = JSON.parse(run('node', ['testkit-runtime.mjs'], consumer).stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ status: 200, requests: 1, done: true, finish: true });
  });

  it('the installed bins answer --version and --help; turnguard serve --mock answers a chat completion (R10.4)', async () => {
    const bin = (name: string): string => join(consumer, 'node_modules', '.bin', name);
    for (const [dir, name] of [['apps/gateway', 'turnguard'], ['apps/probe', 'turnguard-probe'], ['packages/stats', 'turnguard-stats']] as const) {
      expect(run(bin(name), ['--version'], consumer).stdout).toBe(`${readManifest(dir).version}\n`);
      expect(run(bin(name), ['--help'], consumer).stdout).toMatch(new RegExp(`^Usage: ${name} `));
    }
    const answer = await askMockGateway(consumer);
    expect(answer.status).toBe(200);
    expect(answer.content).toContain('turnguard mock upstream');
  }, 30_000);

  it('the oldest versions the peer ranges claim still compile and run (R10.3)', () => {
    const oldest = Object.entries(peerRanges).map(([name, range]) => `${name}@${lowestOfCaretRange(range)}`);
    reinstallUserPackages(consumer, oldest);
    // One tsc for both programs: the no-DOM property is proven above; this run is about the SDKs' and msw's types.
    expect(typecheck(consumer, writeTsconfig(consumer, 'oldest', 'nodenext', ['program.ts', 'testkit-program.ts'], ['es2023', 'dom']))).toBe('');
    const report = JSON.parse(run('node', ['testkit-runtime.mjs'], consumer).stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ msw: lowestOfCaretRange(peerRanges.msw!), status: 200, requests: 1, done: true, finish: true });
  }, 240_000);
});

/**
 * R10.1: every TypeScript example in a README (the root one, packages/*,
 * apps/*) compiles and runs as written. Each ```ts block is written to its own
 * module under test/readme/.examples/, typechecked in one strict `tsc` run
 * against the packages' sources, then imported: examples that call a provider
 * get the testkit's scripted upstream through msw on the hosts they name;
 * examples that start their own msw server or loopback upstream run alone;
 * a `// prints: …` line names output the example must print.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockUpstream, releaseMockedResponseClones, scenario } from '@turnguard/testkit';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WORKSPACE_SOURCES } from '../workspace-sources.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES_DIR = join(ROOT, 'test', 'readme', '.examples');
const README_FILES = [
  'README.md',
  ...['packages', 'apps'].flatMap((group) => readdirSync(join(ROOT, group)).sort().map((name) => `${group}/${name}/README.md`)),
];
/** The hosts the examples send to, answered by the scripted upstream. */
const BASE_URLS = ['https://api.openai.com/v1', 'https://api.anthropic.com/v1', 'https://api.deepseek.com/v1', 'https://api.example/v1', 'http://127.0.0.1:8787/v1'];
const ANSWER = 'Hello from the README test.';

interface Example {
  name: string;
  readme: string;
  file: string;
  code: string;
  /** It starts its own msw server or loopback upstream: run without ours. */
  selfContained: boolean;
}

function collectExamples(): Example[] {
  const examples: Example[] = [];
  for (const readme of README_FILES) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, readme), 'utf8');
    } catch {
      continue;
    }
    const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    blocks.forEach((code, index) => {
      const name = `${readme.replace(/\/README\.md$|\.md$/, '').replace(/[^a-z0-9]+/gi, '-')}-${index + 1}`;
      const selfContained = code.includes("from 'msw/node'") || code.includes('startLoopbackUpstream') || code.includes('startFaultUpstream');
      examples.push({ name, readme, file: join(EXAMPLES_DIR, `${name}.ts`), code, selfContained });
    });
  }
  return examples;
}

const examples = collectExamples();


beforeAll(() => {
  rmSync(EXAMPLES_DIR, { recursive: true, force: true });
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  // `export {}` keeps each example its own module (top-level await, no shared names).
  for (const example of examples) writeFileSync(example.file, `${example.code}\nexport {};\n`);
});

describe('README TypeScript examples (R10.1)', () => {
  it('finds the examples of every README', () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
    for (const readme of ['README.md', 'packages/core/README.md', 'packages/stats/README.md', 'packages/testkit/README.md', 'apps/gateway/README.md', 'apps/probe/README.md']) {
      expect(examples.some((example) => example.readme === readme), readme).toBe(true);
    }
  });

  it('every example compiles under strict settings', { timeout: 180_000 }, () => {
    const tsconfig = join(EXAMPLES_DIR, 'tsconfig.json');
    const paths = Object.fromEntries(Object.entries(WORKSPACE_SOURCES).map(([name, source]) => [name, [join(ROOT, source)]]));
    const compilerOptions = { noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', allowImportingTsExtensions: false, paths };
    writeFileSync(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.base.json'), compilerOptions, files: examples.map((example) => example.file) }, null, 2));
    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig, '--pretty', 'false'], { encoding: 'utf8', cwd: ROOT });
    const diagnostics = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.includes('.examples/'));
    expect(diagnostics).toEqual([]);
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });
});

describe('README TypeScript examples run as written (R10.1)', () => {
  const upstream = createMockUpstream({ defaultScenario: (protocol) => scenario.for(protocol).reasoning(20).text(ANSWER).usage({ input: 5, output: 7 }) });
  const server = setupServer(...BASE_URLS.flatMap((base) => upstream.handlers(base)));
  let home: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'tg-readme-home-'));
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  async function runExample(example: Example): Promise<string> {
    upstream.reset();
    vi.stubEnv('HOME', home);
    vi.stubEnv('OPENAI_API_KEY', 'sk-readme-openai-0123456789');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-readme-0123456789');
    vi.stubEnv('DEEPSEEK_API_KEY', 'sk-readme-deepseek-0123456789');
    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
    const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(`${parts.map(String).join(' ')}\n`));
    let release: (() => void) | undefined;
    if (!example.selfContained) {
      server.listen({ onUnhandledRequest: 'bypass' });
      release = releaseMockedResponseClones(server);
    }
    try {
      await import(/* @vite-ignore */ example.file);
    } finally {
      release?.();
      if (!example.selfContained) server.close();
      write.mockRestore();
      log.mockRestore();
      vi.unstubAllEnvs();
    }
    return printed.join('');
  }

  it.each(examples.map((example) => [example.name, example] as const))('%s', { timeout: 30_000 }, async (_name, example) => {
    const printed = await runExample(example);
    // Examples that call a provider sent a request carrying the key they read; those that print the deltas printed the answer.
    if (/runTurn\(|runAgentLoop\(|decodeStream\(|\.create\(/.test(example.code) && !example.selfContained) {
      expect(upstream.requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(upstream.requests[0]!.headers)).toMatch(/sk-readme|sk-ant-readme/);
    }
    if (/process\.stdout\.write\(event\.delta\)/.test(example.code)) expect(printed).toContain(ANSWER);
    // A `// prints: …` line is a promise to the reader: the example printed it.
    for (const [, line] of example.code.matchAll(/^\/\/ prints: (.+)$/gm)) expect(printed).toContain(line);
  });
});

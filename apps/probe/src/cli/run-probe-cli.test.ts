/** R9.1: the `turnguard-probe` CLI — help, clear errors for bad flags, exit codes, stats, a real-upstream target. */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scenario, startLoopbackUpstream } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runProbeCli } from './run-probe-cli.js';

const TIMING = { serverWaitMs: 1, backoffInitialMs: 1, chunkDelayMs: 0 };
let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'turnguard-probe-cli-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

async function runCli(argv: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const exitCode = await runProbeCli(argv, {
    env,
    cwd: directory,
    stdout: { write: (text) => (stdout += text), isTTY: false },
    writeErr: (text) => (stderr += text),
    timing: TIMING,
  });
  return { exitCode, stdout, stderr };
}

describe('--help', () => {
  it('lists every scenario, says which run on a real upstream, and exits 0', async () => {
    const { exitCode, stdout, stderr } = await runCli(['--help']);
    expect([exitCode, stderr]).toEqual([0, '']);
    for (const name of ['long-think-cut', 'rate-limit-storm', 'overload-5xx', 'socket-drop-before-output', 'socket-drop-after-output', 'output-truncation', 'prompt-too-long', 'malformed-tool-args']) {
      expect(stdout).toContain(`  ${name} `);
    }
    expect(stdout).toMatch(/long-think-cut .*\[mock, real\]/);
    expect(stdout).toMatch(/rate-limit-storm .*\[mock only\]/);
    expect(stdout).toContain('waits are');
    expect(stdout).toContain('--api-key-env');
  });
});

describe('bad flags give one clear error and exit 2', () => {
  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--protocol', 'grpc'], '--protocol must be one of chat, messages, responses, got "grpc"'],
    [['--scenario', 'nope'], 'Unknown scenario "nope". Known: long-think-cut,'],
    [['--scenario'], "Option '--scenario <value>' argument missing"],
    [['--all', '--scenario', 'long-think-cut'], 'Give --all or --scenario, not both.'],
    [['--model', 'gpt-5'], '--model and --api-key-env are for a real upstream; give --base-url too.'],
    [['--base-url', 'http://127.0.0.1:9/v1', '--all'], '--all runs on the embedded mock only'],
    [['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], '--base-url needs --protocol'],
    [['--base-url', 'http://127.0.0.1:9/v1', '--protocol', 'chat'], '--base-url needs --model.'],
    [['--base-url', 'not a url', '--protocol', 'chat', '--model', 'm'], '--base-url is not a URL: "not a url".'],
    [['--base-url', 'http://u:p@127.0.0.1/v1', '--protocol', 'chat', '--model', 'm'], '--base-url must not carry credentials'],
    [['--base-url', 'http://127.0.0.1:9/v1', '--protocol', 'chat', '--model', 'm'], 'The environment variable OPENAI_API_KEY is not set'],
    [['--base-url', 'http://127.0.0.1:9', '--protocol', 'messages', '--model', 'm'], 'The environment variable ANTHROPIC_API_KEY is not set'],
    [['--base-url', 'http://127.0.0.1:9/v1', '--protocol', 'chat', '--model', 'm', '--api-key-env', 'BAD-NAME'], '--api-key-env must name an environment variable'],
    [['--stats-file', 'x.json', '--no-stats'], 'Give --stats-file or --no-stats, not both.'],
  ])('%j', async (argv, message) => {
    const { exitCode, stdout, stderr } = await runCli(argv);
    expect(exitCode).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`turnguard-probe: ${message}`);
    expect(stderr).toContain('Run turnguard-probe --help');
  });

  it('a mock-only scenario against a real upstream names the ones that work there', async () => {
    const argv = ['--base-url', 'http://127.0.0.1:9/v1', '--protocol', 'chat', '--model', 'm', '--scenario', 'rate-limit-storm'];
    const { exitCode, stderr } = await runCli(argv, { OPENAI_API_KEY: 'k' });
    expect(exitCode).toBe(2);
    expect(stderr).toContain('Scenario "rate-limit-storm" needs injected faults and runs on the mock only; against a real upstream use: long-think-cut.');
  });
});

describe('a run', () => {
  it('default scenario on the mock: plain progress lines, summary table, files, stats and the dashboard command; exit 0', async () => {
    const statsFile = join(directory, 'stats', 'stats.json');
    const { exitCode, stdout, stderr } = await runCli(['--protocol', 'messages', '--out', 'results', '--stats-file', statsFile]);
    expect([exitCode, stderr]).toEqual([0, '']);
    expect(stdout).not.toMatch(/[\r\x1b]/);
    expect(stdout).toContain('against the embedded mock upstream — waits shortened');
    expect(stdout).toMatch(/long-think-cut\/messages \+\d+\.\d\ds stream cut after thinking only/);
    expect(stdout).toMatch(/long-think-cut\s+messages\s+ok\s+2\s+yes\s+-\s+0\s+\d+\.\d\ds\s+pass/);
    expect(stdout).toContain('all 1 runs behaved as expected');
    expect(stdout).toContain(`stats:  ${statsFile}`);
    // A command that runs where the probe runs: the installed stats CLI, not an npx of an unpublished package (R10.4).
    const dashboard = /^dashboard: node (\S+) serve --file (\S+)$/m.exec(stdout);
    expect(dashboard?.[1]).toBe(join(fileURLToPath(new URL('../../../../packages/stats/', import.meta.url)), 'dist', 'cli.js'));
    expect(dashboard?.[2]).toBe('stats/stats.json');
    const files = await readdir(join(directory, 'results'));
    expect(files.filter((name) => /^\d{4}-\d\d-\d\dT[\d-]+Z-(result\.json|trace\.jsonl)$/.test(name))).toHaveLength(2);
    const stats = JSON.parse(await readFile(statsFile, 'utf8')) as { samples: unknown[]; logical: { turns: number; recovered: number } };
    expect(stats.samples).toHaveLength(2);
    expect(stats.logical).toMatchObject({ turns: 1, recovered: 1 });
  });

  it('against the mock, stats go to mock-stats.json beside the real stats.json, unless told otherwise (R9.1)', async () => {
    const home = join(directory, 'home');
    const previous = process.env.HOME;
    process.env.HOME = home;
    try {
      const { exitCode, stdout } = await runCli(['--scenario', 'socket-drop-after-output', '--protocol', 'chat', '--out', 'results']);
      expect(exitCode).toBe(0);
      expect(stdout).toContain(`stats:  ${join(home, '.turnguard', 'mock-stats.json')}`);
      expect(await readdir(join(home, '.turnguard'))).toEqual(['mock-stats.json']);
      const told = await runCli(['--scenario', 'socket-drop-after-output', '--protocol', 'chat', '--out', 'results'], { TURNGUARD_STATS_FILE: join(directory, 'told.json') });
      expect(told.stdout).toContain(`stats:  ${join(directory, 'told.json')}`);
    } finally {
      process.env.HOME = previous;
    }
  });

  it('--no-stats writes no stats file and prints no dashboard line', async () => {
    const { exitCode, stdout } = await runCli(['--scenario', 'socket-drop-after-output', '--protocol', 'chat', '--out', 'results', '--no-stats']);
    expect(exitCode).toBe(0);
    expect(stdout).not.toContain('dashboard:');
    expect(await readdir(directory)).toEqual(['results']);
  });

  it('a real upstream: key from the named variable sent upstream only; an outcome other than expected exits 1', async () => {
    const upstream = await startLoopbackUpstream();
    try {
      upstream.chat.enqueue(scenario.chat().httpError(400, { message: 'model not found' }));
      const key = 'sk-probe-secret-key-91c2';
      const argv = ['--base-url', upstream.baseUrl, '--protocol', 'chat', '--model', 'real-model', '--api-key-env', 'MY_KEY', '--out', 'results', '--no-stats'];
      const { exitCode, stdout } = await runCli(argv, { MY_KEY: key });
      expect(exitCode).toBe(1);
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.headers['authorization']).toBe(`Bearer ${key}`);
      expect(upstream.requests[0]!.body).toMatchObject({ model: 'real-model', stream: true });
      expect(stdout).toContain(`against ${upstream.baseUrl} (real-model, key from $MY_KEY)`);
      expect(stdout).toContain('1 of 1 runs did NOT behave as expected:');
      expect(stdout).toContain('long-think-cut/chat: outcome: expected ok, got error');
      const [resultName] = (await readdir(join(directory, 'results'))).filter((name) => name.endsWith('-result.json'));
      const resultText = await readFile(join(directory, 'results', resultName!), 'utf8');
      expect(`${stdout}${resultText}`).not.toContain(key);
      expect(JSON.parse(resultText)).toMatchObject({ target: { kind: 'real', model: 'real-model', apiKeyEnv: 'MY_KEY' }, totals: { failed: 1 } });
    } finally {
      await upstream.close();
    }
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scenario } from '@turnguard/testkit';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { hasPrometheus, PROMETHEUS_BINARY, startPrometheus, type PrometheusServer } from '../testing/prometheus-server.test-helper.js';

/*
 * R12.2, R12.5 with a real Prometheus (Debian's `prometheus`): it scrapes two
 * gateway replicas on loopback every second with deploy/prometheus.yml (its
 * targets moved to the replicas, its token file written here), and PromQL
 * over its HTTP API returns the turns, failures and tokens that went through
 * them. On a
 * machine without the binary this suite is skipped, not failed; the test
 * command installs it first where it can (scripts/ensure-prometheus.mjs).
 */
if (!hasPrometheus) console.warn(`[gateway] Prometheus scrape test skipped: ${PROMETHEUS_BINARY} not found (apt-get install prometheus)`);

const TOKEN = 'scrape-token-0123456789abcdef';
let replicaA: Harness;
let replicaB: Harness;
let prometheus: PrometheusServer | undefined;

function post(h: Harness, path: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-turnguard-token': TOKEN, authorization: 'Bearer sk-client', 'x-api-key': 'sk-client', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
}

const DEPLOY_CONFIG = fileURLToPath(new URL('../../../../deploy/prometheus.yml', import.meta.url));

/** deploy/prometheus.yml with the replicas as targets, a 1 s interval and the token in a file, as compose mounts it. */
async function deployConfigFor(targets: string[], dir: string): Promise<string> {
  const config = parse(await readFile(DEPLOY_CONFIG, 'utf8')) as {
    global: Record<string, string>;
    scrape_configs: Array<{ authorization: { credentials_file: string }; static_configs: Array<{ targets: string[] }> }>;
  };
  config.global = { ...config.global, scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' };
  const [job] = config.scrape_configs;
  job!.static_configs = [{ targets }];
  job!.authorization.credentials_file = join(dir, 'turnguard_token');
  await writeFile(job!.authorization.credentials_file, TOKEN);
  return stringify(config);
}

/** `sum by (label) (…)` as `{ value of label: sum }`. */
function byLabel(result: Array<{ metric: Record<string, string>; value: number }>, label: string): Record<string, number> {
  return Object.fromEntries(result.map((series) => [series.metric[label] ?? '', series.value]));
}

describe.skipIf(!hasPrometheus)('R12.2 a real Prometheus scrapes two gateway replicas', () => {
  beforeAll(async () => {
    replicaA = await startHarness({ authToken: TOKEN });
    replicaB = await startHarness({ authToken: TOKEN, retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 2 } });
    // Replica A: an answer, a 429 retried into an answer, and a Messages stream cut after its text (STREAM_CUT).
    replicaA.upstream.chat.enqueue(
      scenario.chat().text('first').usage({ input: 10, output: 5 }),
      scenario.chat().httpError(429, { headers: { 'retry-after-ms': '1' } }),
      scenario.chat().text('after the wait').usage({ input: 7, output: 3, cachedInput: 2 }),
    );
    replicaA.upstream.messages.enqueue(scenario.messages().text('partial answer that is then cut').eof({ afterEvents: 4 }));
    await (await post(replicaA, '/v1/chat/completions', { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'a' }] })).text();
    await (await post(replicaA, '/v1/chat/completions', { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'b' }] })).text();
    await (await post(replicaA, '/v1/messages', { model: 'claude-test', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'c' }] })).text();
    // Replica B: a Responses answer with reasoning tokens, and a Chat 500 that fails after its one retry.
    replicaB.upstream.responses.enqueue(scenario.responses().text('done').usage({ input: 4, output: 2, reasoning: 1 }));
    replicaB.upstream.chat.enqueue(scenario.chat().httpError(500), scenario.chat().httpError(500));
    await (await post(replicaB, '/v1/responses', { model: 'gpt-test', stream: true, input: 'd' })).text();
    await (await post(replicaB, '/v1/chat/completions', { model: 'gpt-test', stream: false, messages: [{ role: 'user', content: 'e' }] })).text();
    await replicaA.sink.waitForTurns(3);
    await replicaB.sink.waitForTurns(2);
    prometheus = await startPrometheus((dir) => deployConfigFor([new URL(replicaA.url).host, new URL(replicaB.url).host], dir));
    await prometheus.waitFor('sum(up{job="turnguard"})', (result) => result[0]?.value === 2);
  }, 30_000);

  afterAll(async () => {
    await prometheus?.close();
    await replicaA?.close();
    await replicaB?.close();
  });

  it('PromQL returns the turns by outcome and the failed turns by code', async () => {
    const turns = await prometheus!.query('sum by (outcome) (turnguard_logical_turns_total)');
    expect(byLabel(turns, 'outcome')).toEqual({ ok: 3, failed: 2 });
    const failedTurns = await prometheus!.query('sum by (code) (turnguard_logical_turn_failures_total)');
    expect(byLabel(failedTurns, 'code')).toEqual({ STREAM_CUT: 1, SERVER: 1 });
    const perReplica = await prometheus!.query('sum by (instance) (turnguard_logical_turns_total)');
    expect(byLabel(perReplica, 'instance')).toEqual({ [new URL(replicaA.url).host]: 3, [new URL(replicaB.url).host]: 2 });
  });

  it('PromQL returns the physical requests, the failures by code and the retries', async () => {
    expect(byLabel(await prometheus!.query('sum by (result) (turnguard_physical_requests_total)'), 'result')).toEqual({ ok: 3, failed: 4 });
    expect(byLabel(await prometheus!.query('sum by (code) (turnguard_upstream_failures_total)'), 'code')).toEqual({ RATE_LIMIT: 1, STREAM_CUT: 1, SERVER: 2 });
    expect(byLabel(await prometheus!.query('sum by (protocol, code) (turnguard_retries_total)'), 'code')).toEqual({ RATE_LIMIT: 1, SERVER: 1 });
  });

  it('PromQL returns the tokens the upstreams reported, by type; a type nobody reported has no series (R5.1)', async () => {
    const tokens = byLabel(await prometheus!.query('sum by (type) (turnguard_tokens_total)'), 'type');
    expect(tokens).toEqual({ input: 10 + 7 + 4, output: 5 + 3 + 2, cached_input: 2, reasoning: 1 });
    expect(await prometheus!.query('turnguard_tokens_total{type="cache_creation"}')).toEqual([]);
    // What each replica recorded in its own stats samples is what Prometheus sums.
    const recorded = [...replicaA.sink.samples, ...replicaB.sink.samples].reduce((sum, sample) => sum + (sample.usage.inputTokens ?? 0), 0);
    expect(tokens.input).toBe(recorded);
  });

  it('each replica reports its build and process metrics; the model label is the request’s', async () => {
    const builds = await prometheus!.query('turnguard_build_info');
    expect(builds).toHaveLength(2);
    for (const build of builds) expect(build.metric).toMatchObject({ version: '0.0.0', node_version: process.version });
    expect(await prometheus!.query('process_resident_memory_bytes{job="turnguard"} > 0')).toHaveLength(2);
    expect(byLabel(await prometheus!.query('sum by (model) (turnguard_logical_turns_total)'), 'model')).toEqual({ 'gpt-test': 4, 'claude-test': 1 });
  });
});

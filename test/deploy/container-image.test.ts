/**
 * R12.5 and R8.9 for the container image and the fleet example, on a machine
 * where no container engine runs (`docker` here is a client with no daemon
 * to talk to, and there is no compose plugin). What can be checked is:
 * - the Dockerfile, parsed and linted (dockerfile-ast, dockerfile-utils):
 *   slim Node 20, a non-root user, a health check, the gateway as entrypoint;
 * - the image's runtime install step (the packed gateway installed with the
 *   same npm command) and its ENTRYPOINT + CMD run directly, with the image's
 *   environment and the health check the image runs;
 * - deploy/compose.yaml against the Compose Specification's JSON schema, its
 *   structure, and a replica started with its environment answering the scrape
 *   deploy/prometheus.yml describes.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Ajv } from 'ajv';
import { validate } from 'dockerfile-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, packWorkspace, readManifest, run } from '../release/packed-workspace.js';
import { DEPLOY_DIR, interpolate, readYaml } from './compose-file.js';
import { readDockerfile } from './read-dockerfile.js';
import { freePort, runToEnd, startEntrypoint, type RunningGateway } from './run-entrypoint.js';

const TOKEN = 'deploy-test-token-0123456789abcdef';
const image = readDockerfile();
const IMAGE_PREFIX = '/opt/turnguard';

let workDir: string;
/** Where the image's runtime stage installs the gateway, here. */
let installDir: string;
let running: RunningGateway | undefined;

/** The directories the build stage packs, read from its `for dir in …` loop. */
function packedDirs(): string[] {
  const loop = image.text.match(/for dir in ([^;]+);/);
  if (loop === null) throw new Error('the Dockerfile no longer packs with `for dir in …;`');
  return loop[1]!.trim().split(/\s+/);
}

/** The image's environment with its paths moved under this test's folders, the port free, and `extra` on top. */
function imageEnvironment(port: number, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(image.env)) env[name] = value.replaceAll(IMAGE_PREFIX, installDir);
  env.PATH = env.PATH!.replace('$PATH', process.env.PATH ?? '');
  // Only what a container's filesystem and network namespace would give it differently: a free port and a writable /data.
  env.TURNGUARD_PORT = String(port);
  env.TURNGUARD_STATS_FILE = join(workDir, 'data', 'stats.json');
  return { ...env, HOME: workDir, ...extra };
}

function healthcheck(env: Record<string, string>): { status: number | null; output: string } {
  const [program, script] = image.healthcheck;
  // The script the image copies to /opt/turnguard is deploy/healthcheck.mjs.
  return runToEnd([program!, script!.replace(`${IMAGE_PREFIX}/healthcheck.mjs`, join(DEPLOY_DIR, 'healthcheck.mjs'))], env, workDir);
}

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'turnguard-image-'));
  mkdirSync(join(workDir, 'data'));
  installDir = join(workDir, 'opt-turnguard');
  mkdirSync(installDir);
  const names = new Set(packedDirs().map((dir) => readManifest(dir)).map(({ name, version }) => `${name.replace('@', '').replace('/', '-')}-${version}.tgz`));
  const tarballs = packWorkspace(join(workDir, 'packs')).filter((file) => names.has(basename(file)));
  expect(tarballs).toHaveLength(names.size);
  // The runtime stage's install, word for word (checked against the Dockerfile below).
  writeFileSync(join(installDir, 'package.json'), '{"name":"turnguard-image","private":true}\n');
  run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], installDir);
}, 240_000);

afterAll(async () => {
  await running?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('R12.5 the Dockerfile', () => {
  it('lints clean, builds on slim Node 20 in both stages and runs as a non-root user', () => {
    expect(validate(image.text)).toEqual([]);
    expect(image.bases).toEqual(['node:20-slim', 'node:20-slim']);
    expect(image.user).toBe('node');
  });

  it('runs `turnguard serve` (the gateway package’s bin) on 0.0.0.0:8787, so its token is required (R8.9), with a health check', () => {
    expect(image.entrypoint).toEqual(['turnguard']);
    expect(readManifest('apps/gateway').bin).toEqual({ turnguard: './dist/cli.js' });
    expect(image.cmd).toEqual(['serve']);
    expect(image.env).toMatchObject({ TURNGUARD_HOST: '0.0.0.0', TURNGUARD_PORT: '8787', TURNGUARD_STATS_FILE: '/data/stats.json' });
    expect(image.expose).toEqual([image.env.TURNGUARD_PORT]);
    expect(image.healthcheck).toEqual(['node', `${IMAGE_PREFIX}/healthcheck.mjs`]);
    expect(image.text).toContain(`COPY deploy/healthcheck.mjs ${IMAGE_PREFIX}/healthcheck.mjs`);
    expect(image.runs.at(-1)).toContain('npm install --omit=dev --no-audit --no-fund --ignore-scripts /tmp/packs/*.tgz');
    expect(packedDirs()).toContain('apps/gateway');
  });
});

describe('R12.5 the image’s entrypoint, run directly with its environment', () => {
  it('serves, passes the health check, and asks for the token on everything but /healthz', async () => {
    const port = await freePort();
    const env = imageEnvironment(port, { TURNGUARD_AUTH_TOKEN: TOKEN });
    running = await startEntrypoint([...image.entrypoint, ...image.cmd], env);
    expect(running.output()).toContain(`turnguard gateway listening on http://0.0.0.0:${port}`);
    expect(running.output()).toContain('gateway token required');
    expect(healthcheck(env)).toEqual({ status: 0, output: '' });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^turnguard_build_info\{version="[^"]+",node_version="v20\./m);
    await running.stop();
    running = undefined;
    // Nothing answers any more: the health check says so.
    expect(healthcheck(env).status).toBe(1);
  }, 30_000);

  it('refuses to start without a token (R8.9), saying how to fix it', async () => {
    const failure = await startEntrypoint([...image.entrypoint, ...image.cmd], imageEnvironment(await freePort())).then(
      () => undefined,
      (error: { code?: number; output?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.output).toContain('TURNGUARD_AUTH_TOKEN');
  }, 30_000);
});

describe('R12.5 deploy/compose.yaml', () => {
  const compose = readYaml(join(DEPLOY_DIR, 'compose.yaml'));
  const services = compose.services as Record<string, Record<string, unknown>>;

  it('is valid under the Compose Specification’s JSON schema', () => {
    const { $schema, ...schema } = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/compose-spec/compose-spec.json'), 'utf8')) as { $schema: string };
    // Draft 07, named by its https URL, which Ajv knows by the http one; Ajv's default draft is 07.
    expect($schema).toBe('https://json-schema.org/draft-07/schema');
    const ajv = new Ajv({ allErrors: true, strict: false });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs two replicas of the image, each with its own stats volume, and Prometheus scraping both with the token', () => {
    const replicas = Object.entries(services).filter(([, service]) => (service.build as { dockerfile?: string } | undefined)?.dockerfile === 'Dockerfile');
    expect(replicas.map(([name]) => name)).toEqual(['gateway-1', 'gateway-2']);
    const volumes = replicas.map(([, service]) => (service.volumes as string[])[0]);
    expect(volumes).toEqual(['gateway-1-stats:/data', 'gateway-2-stats:/data']);
    for (const [, service] of replicas) {
      expect((service.build as { context: string }).context).toBe('..');
      expect((service.environment as Record<string, string>).TURNGUARD_AUTH_TOKEN).toMatch(/^\$\{TURNGUARD_AUTH_TOKEN:\?/);
    }
    const prometheusConfig = readYaml(join(DEPLOY_DIR, 'prometheus.yml'));
    const [job] = prometheusConfig.scrape_configs as Array<{ authorization: { type: string; credentials_file: string }; static_configs: Array<{ targets: string[] }> }>;
    expect(job!.static_configs[0]!.targets).toEqual(replicas.map(([name]) => `${name}:${image.env.TURNGUARD_PORT}`));
    expect(job!.authorization).toEqual({ type: 'Bearer', credentials_file: '/run/secrets/turnguard_token' });
    expect(services.prometheus!.secrets).toEqual(['turnguard_token']);
    expect(compose.secrets).toEqual({ turnguard_token: { environment: 'TURNGUARD_AUTH_TOKEN' } });
  });

  it('a replica started with its compose environment answers Prometheus’s scrape of gateway-1:8787 with the bearer token', async () => {
    const gateway1 = services['gateway-1']!.environment as Record<string, string>;
    const composeEnv = Object.fromEntries(Object.entries(gateway1).map(([name, value]) => [name, interpolate(String(value), { TURNGUARD_AUTH_TOKEN: TOKEN })]));
    // The collector's address moved to loopback, as the scrape targets are (nothing answers there: export is best effort).
    composeEnv.OTEL_EXPORTER_OTLP_ENDPOINT = composeEnv.OTEL_EXPORTER_OTLP_ENDPOINT!.replace('otel-collector', '127.0.0.1');
    expect(() => interpolate(gateway1.TURNGUARD_AUTH_TOKEN!, {})).toThrow(/TURNGUARD_AUTH_TOKEN is required/);
    const port = await freePort();
    running = await startEntrypoint([...image.entrypoint, ...image.cmd], imageEnvironment(port, composeEnv));
    const scrape = (host: string): Promise<number> =>
      new Promise((resolve, reject) => {
        // fetch() may not set Host; Prometheus sends the target's own name.
        import('node:http').then(({ request }) => {
          request({ host: '127.0.0.1', port, path: '/metrics', headers: { host, authorization: `Bearer ${TOKEN}` } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          }).on('error', reject).end();
        }, reject);
      });
    expect(await scrape(`gateway-1:${image.env.TURNGUARD_PORT}`)).toBe(200);
    expect(await scrape(`gateway-2:${image.env.TURNGUARD_PORT}`)).toBe(200);
    // A name the compose file does not allow is refused (DNS rebinding, R8.9).
    expect(await scrape('evil.example')).toBe(403);
    await running.stop();
    running = undefined;
  }, 30_000);
});

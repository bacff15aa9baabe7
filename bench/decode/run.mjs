// bench/decode: decoder throughput and memory, side by side with the
// official SDKs and a parse-only floor.
//
//   node bench/decode/run.mjs [--records 20000] [--runs 7] [--warmup 2]
//     [--memory-sizes 20000,200000] [--skip-memory] [--no-build] [--write-readme]
//
// 1. builds the adapters and the testkit (turbo, only those and their deps);
// 2. starts the loopback server (its own process, so serving does not share
//    the measured event loop);
// 3. one throughput process per protocol (interleaved variants);
// 4. one memory process per protocol × variant × size;
// 5. prints the tables (and writes them into bench/README.md with --write-readme).
import { execFile, fork, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT } from './resolve-deps.mjs';
import { PROTOCOLS } from './wire-streams.mjs';
import { VARIANT_LABELS } from './variants.mjs';
import { formatResults, writeResultsIntoReadme } from './report.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const MEMORY_VARIANTS = ['floor', 'ours', 'sdk'];
const WORKER_TIMEOUT_MS = 300_000;
const BUILD_FILTERS = ['@turnguard/adapter-chat...', '@turnguard/adapter-messages...', '@turnguard/adapter-responses...', '@turnguard/testkit...'];

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '2' },
    'memory-sizes': { type: 'string', default: '20000,200000' },
    'skip-memory': { type: 'boolean', default: false },
    // Each timed run right after the other variants' (no untimed run of itself first): decision 0320.
    cold: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'write-readme': { type: 'boolean', default: false },
  },
});
const records = Number(values.records);
const memorySizes = values['memory-sizes'].split(',').map(Number);
if (Number(values.runs) < 5) throw new Error('bench: at least 5 runs (medians of ≥ 5)');

function buildPackages() {
  // Only what the bench imports; dist is build output and is never committed.
  const args = ['turbo', 'run', 'build', ...BUILD_FILTERS.map((filter) => `--filter=${filter}`), '--output-logs=errors-only'];
  const result = spawnSync('pnpm', args, { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  if (result.status !== 0) throw new Error(`bench: build failed (pnpm ${args.join(' ')})`);
}

async function startServer(sizes) {
  const server = fork(join(HERE, 'wire-server.mjs'), [sizes.join(',')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [message] = await Promise.race([
    once(server, 'message'),
    once(server, 'exit').then(([code]) => Promise.reject(new Error(`bench: server exited with ${code}`))),
  ]);
  return { origin: `http://127.0.0.1:${message.port}`, stop: () => server.kill() };
}

const execNode = promisify(execFile);

async function runWorker(script, args) {
  const { stdout } = await execNode(process.execPath, ['--expose-gc', join(HERE, script), ...args], {
    cwd: REPO_ROOT,
    timeout: WORKER_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const lastLine = stdout.trim().split('\n').at(-1);
  return JSON.parse(lastLine);
}

function describeMachine() {
  const cpuList = cpus();
  return `${cpuList.length} cores (${cpuList[0]?.model.trim() ?? 'unknown CPU'}), ${process.platform}/${process.arch}`;
}

if (!values['no-build']) buildPackages();
const startedAt = new Date();
const loadAverage = loadavg().map((value) => value.toFixed(1)).join(' / ');
const sizes = [...new Set([records, ...(values['skip-memory'] ? [] : memorySizes)])];
process.stderr.write(`bench: rendering streams of ${sizes.join(', ')} chunks…\n`);
const server = await startServer(sizes);
const results = [];
const memory = [];
try {
  for (const protocol of PROTOCOLS) {
    process.stderr.write(`bench: throughput ${protocol}…\n`);
    const args = ['--protocol', protocol, '--origin', server.origin, '--records', String(records), '--runs', values.runs, '--warmup', values.warmup, ...(values.cold ? ['--cold'] : [])];
    results.push(await runWorker('throughput-worker.mjs', args));
  }
  if (!values['skip-memory']) {
    for (const protocol of PROTOCOLS) {
      for (const variant of MEMORY_VARIANTS) {
        for (const size of memorySizes) {
          process.stderr.write(`bench: memory ${protocol} ${variant} ${size}…\n`);
          const args = ['--protocol', protocol, '--variant', variant, '--origin', server.origin, '--records', String(size)];
          memory.push(await runWorker('memory-worker.mjs', args));
        }
      }
    }
  }
} finally {
  server.stop();
}

const meta = {
  date: startedAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  machine: describeMachine(),
  node: process.version,
  loadAverage,
  command: `node bench/decode/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  records,
  runs: Number(values.runs),
  warmup: Number(values.warmup),
  memorySizes,
};
const block = formatResults({ meta, results, memory, labels: VARIANT_LABELS });
const rawPath = join(tmpdir(), `turnguard-bench-decode-${startedAt.getTime()}.json`);
writeFileSync(rawPath, JSON.stringify({ meta, results, memory }, null, 2));
process.stdout.write(`${block}\n\nraw timings: ${rawPath}\n`);
if (values['write-readme']) writeResultsIntoReadme(join(REPO_ROOT, 'bench', 'README.md'), block);

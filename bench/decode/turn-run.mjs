// bench/decode/turn-run.mjs: runTurn end to end beside its own decoder, the
// floor (fetch + eventsource-parser, with and without JSON.parse of each
// record) and the official SDKs, with a git ref's runTurn and
// decoders side by side in the same processes (before/after from one run).
//
//   node bench/decode/turn-run.mjs [--sizes 20000,200000] [--processes 4] [--reps 5] [--warmup 1]
//     [--baseline-ref main] [--protocols chat,messages,responses] [--sdk-large messages] [--no-gc]
//     [--node-args=--retain-maps-for-n-gc=1000]   (with "=": parseArgs reads a value starting with "--" as an option)
//     [--pin]   (Linux `taskset`: the wire server on CPU 0, every worker on CPU 1, so serving does not
//                compete with the measured process for its core)
//
// 1. bundles core + the adapters from the working tree and from --baseline-ref (tsup, no dist);
// 2. starts bench/decode/wire-server.mjs (its own process; needs packages/testkit/dist,
//    which `node bench/decode/run.mjs` builds);
// 3. per protocol × size, --processes fresh `node --expose-gc` processes (turn-worker.mjs),
//    each --reps interleaved rounds after --warmup rounds (warm-each at ≤ 50 000 chunks);
// 4. prints, per cell, the median over processes of each process's median, with the range.
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT } from './resolve-deps.mjs';
import { bundleTurnLibs } from './turn-libs.mjs';
import { formatTurnTable, processMedians } from './turn-report.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const WARM_EACH_MAX_RECORDS = 50_000;
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '20000,200000' },
    processes: { type: 'string', default: '4' },
    reps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    'baseline-ref': { type: 'string', default: 'main' },
    protocols: { type: 'string', default: 'chat,messages,responses' },
    // The openai SDK takes ~2 s per 200k-chunk stream: only where an acceptance bullet needs it.
    'sdk-large': { type: 'string', default: 'messages' },
    // No full GC before each timed run (see turn-worker.mjs): steady state.
    'no-gc': { type: 'boolean', default: false },
    // V8 flags for the worker processes, to test a cause (e.g. hidden classes dying in the full GCs
    // between runs: --retain-maps-for-n-gc=1000 keeps them; bench/README.md).
    'node-args': { type: 'string', default: '' },
    pin: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
const protocols = values.protocols.split(',');
const sdkLarge = new Set(values['sdk-large'].split(',').filter(Boolean));
const ref = values['baseline-ref'] === '' ? undefined : values['baseline-ref'];

const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-decode-'));
const startedAt = new Date();
const load = loadavg().map((value) => value.toFixed(1)).join(' / ');
process.stderr.write(`bench: bundling the working tree${ref ? ` and ${ref}` : ''}…\n`);
const libs = await bundleTurnLibs(REPO_ROOT, workDir, ref);

const server = fork(join(HERE, 'wire-server.mjs'), [sizes.join(','), protocols.join(',')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [message] = await Promise.race([once(server, 'message'), once(server, 'exit').then(([code]) => Promise.reject(new Error(`bench: server exited with ${code}`)))]);
const origin = `http://127.0.0.1:${message.port}`;
const execNode = promisify(execFile);
// -a: every thread of the server (libuv and V8 helpers too), not only its main thread.
if (values.pin) await execNode('taskset', ['-a', '-p', '-c', '0', String(server.pid)]);

async function runCell(protocol, records) {
  const args = ['--expose-gc', ...values['node-args'].split(' ').filter(Boolean), join(HERE, 'turn-worker.mjs'), '--protocol', protocol, '--origin', origin, '--records', String(records), '--libs', JSON.stringify(libs), '--reps', values.reps, '--warmup', values.warmup];
  if (records <= WARM_EACH_MAX_RECORDS) args.push('--warm-each');
  if (values['no-gc']) args.push('--no-gc');
  if (records > WARM_EACH_MAX_RECORDS && !sdkLarge.has(protocol)) args.push('--no-sdk');
  const perProcess = [];
  for (let index = 0; index < Number(values.processes); index += 1) {
    const [command, commandArgs] = values.pin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
    const { stdout } = await execNode(command, commandArgs, { cwd: REPO_ROOT, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
    perProcess.push(processMedians(stdout));
  }
  return { protocol, records, perProcess };
}

const cells = [];
try {
  for (const records of sizes) {
    for (const protocol of protocols) {
      process.stderr.write(`bench: ${protocol} ${records} chunks…\n`);
      cells.push(await runCell(protocol, records));
    }
  }
} finally {
  server.kill();
  await rm(workDir, { recursive: true, force: true });
}

const meta = {
  date: startedAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  node: process.version,
  load,
  command: `node bench/decode/turn-run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  processes: Number(values.processes),
  reps: Number(values.reps),
  warmup: Number(values.warmup),
  ref,
};
const rawPath = join(tmpdir(), `turnguard-bench-turn-${startedAt.getTime()}.json`);
await import('node:fs').then(({ writeFileSync }) => writeFileSync(rawPath, JSON.stringify({ meta, cells }, null, 2)));
process.stdout.write(`${formatTurnTable(meta, cells)}\n\nraw: ${rawPath}\n`);

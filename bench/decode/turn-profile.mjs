// bench/decode/turn-profile.mjs: where runTurn's extra time over its own
// decoder goes, by function. The in-memory runs of turn-memory-run.mjs
// (decoder alone, then runTurn, alternating) in one process under
// `--cpu-prof`; each sample is put in the run window it fell in, so the two
// profiles come from the same process, the same warm state and the same GCs.
// Prints self time per event by function for each side, and the difference.
//
//   node bench/decode/turn-profile.mjs [--protocol chat] [--records 20000] [--rounds 60] [--top 30] [--ref <git ref>]
//
// Needs packages/testkit/dist (`node bench/decode/run.mjs` builds it).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT } from './resolve-deps.mjs';
import { bundleTurnLibs } from './turn-libs.mjs';
import { makeTurnVariant, memoryResponses, MEMORY_TARGET } from './turn-timing.mjs';
import { makeRequestBody } from './variants.mjs';
import { renderWireStream } from './wire-streams.mjs';

const { values } = parseArgs({
  options: {
    protocol: { type: 'string', default: 'chat' },
    records: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '60' },
    top: { type: 'string', default: '30' },
    ref: { type: 'string', default: '' },
    // Internal: the profiled process.
    worker: { type: 'string' },
    windows: { type: 'string' },
  },
});
const records = Number(values.records);

/** Monotonic µs, the clock V8's profile timestamps use. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

async function runWorker(libPath) {
  const lib = await import(pathToFileURL(libPath).href);
  const { protocol } = values;
  const plan = await renderWireStream(protocol, records);
  const makeResponse = memoryResponses(new Uint8Array(Buffer.concat(plan.chunks)), 16_384);
  const adapter = lib.adapters[protocol];
  const variants = {
    ours: async () => {
      for await (const _event of adapter.decodeStream(makeResponse().body));
    },
    turn: makeTurnVariant(lib, protocol, { request: makeRequestBody(protocol), target: MEMORY_TARGET, fetch: async () => makeResponse(), records }),
  };
  const windows = [];
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round += 1) {
    for (const name of round % 2 === 0 ? ['ours', 'turn'] : ['turn', 'ours']) {
      const start = nowUs();
      await variants[name]();
      // The first quarter warms up and is not counted.
      if (round >= rounds / 4) windows.push({ name, start, end: nowUs() });
    }
  }
  const { writeFile } = await import('node:fs/promises');
  await writeFile(values.windows, JSON.stringify(windows));
}

/** Self µs per function (and per file) within each named window set. */
function splitProfile(profile, windows) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const sides = {};
  let at = profile.startTime;
  let cursor = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    at += profile.timeDeltas[index];
    const delta = profile.timeDeltas[index + 1] ?? 0;
    while (cursor < windows.length && windows[cursor].end < at) cursor += 1;
    const window = windows[cursor];
    if (window === undefined || window.start > at) continue;
    const { callFrame } = nodes.get(profile.samples[index]);
    const where = callFrame.url ? `${callFrame.url.replace(/^.*\//, '')}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    const side = (sides[window.name] ??= { total: 0, byFunction: new Map() });
    side.byFunction.set(key, (side.byFunction.get(key) ?? 0) + delta);
    side.total += delta;
  }
  return sides;
}

async function runAll() {
  const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-profile-'));
  try {
    const libs = await bundleTurnLibs(REPO_ROOT, workDir, values.ref === '' ? undefined : values.ref);
    for (const [name, lib] of Object.entries(libs)) {
      const profileDir = join(workDir, `profile-${name.replace(/\W/g, '_')}`);
      const windowsFile = join(workDir, 'windows.json');
      const args = ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', profileDir, fileURLToPath(import.meta.url), '--worker', lib, '--windows', windowsFile, '--protocol', values.protocol, '--records', values.records, '--rounds', values.rounds];
      await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, timeout: 600_000 });
      const [file] = await readdir(profileDir);
      const profile = JSON.parse(await readFile(join(profileDir, file), 'utf8'));
      const windows = JSON.parse(await readFile(windowsFile, 'utf8'));
      const runs = windows.filter((window) => window.name === 'turn').length;
      const sides = splitProfile(profile, windows);
      const perEvent = (micros) => (micros * 1000) / runs / records;
      const keys = new Set([...sides.ours.byFunction.keys(), ...sides.turn.byFunction.keys()]);
      const rows = [...keys].map((key) => [key, perEvent(sides.ours.byFunction.get(key) ?? 0), perEvent(sides.turn.byFunction.get(key) ?? 0)]);
      rows.sort((a, b) => Math.abs(b[2] - b[1]) - Math.abs(a[2] - a[1]));
      process.stdout.write(`\n${name}: ${values.protocol}, ${runs} runs per side; self ns per event (sampled every 50 µs)\n`);
      process.stdout.write(`total: ours ${perEvent(sides.ours.total).toFixed(0)}, turn ${perEvent(sides.turn.total).toFixed(0)} (+${perEvent(sides.turn.total - sides.ours.total).toFixed(0)})\n`);
      process.stdout.write('  ours   turn   diff  function\n');
      for (const [key, ours, turn] of rows.slice(0, Number(values.top))) process.stdout.write(`${ours.toFixed(1).padStart(6)} ${turn.toFixed(1).padStart(6)} ${(turn - ours).toFixed(1).padStart(6)}  ${key}\n`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

if (values.worker !== undefined) await runWorker(values.worker);
else await runAll();

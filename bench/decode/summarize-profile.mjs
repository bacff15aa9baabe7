// Self time per function from a `node --cpu-prof` profile, heaviest first,
// plus self time per source file — enough to name the hot spot of a decoder.
//   node bench/decode/summarize-profile.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: summarize-profile.mjs <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topArg ?? 25);

const nodesById = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
// timeDeltas[i] is the time spent before samples[i] was taken, in that sample's frame.
profile.samples.forEach((id, index) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));

const shortenUrl = (url) => url.replace(/^file:\/\/.*\/node_modules\/\.pnpm\/([^/]+)\/node_modules\//, '$1:').replace(/^file:\/\/\/work\/main\//, '');
const byFunction = new Map();
const byFile = new Map();
let total = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodesById.get(id);
  const where = callFrame.url ? `${shortenUrl(callFrame.url)}:${callFrame.lineNumber + 1}` : '(native)';
  const key = `${callFrame.functionName || '(anonymous)'}  ${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
  const fileKey = callFrame.url ? shortenUrl(callFrame.url) : callFrame.functionName;
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + micros);
  total += micros;
}

const print = (title, entries) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * micros) / total).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${key}\n`);
  }
};
print(`self time by function (total ${(total / 1000).toFixed(0)} ms)`, byFunction);
print('self time by file', byFile);

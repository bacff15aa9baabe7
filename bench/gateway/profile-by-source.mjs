// Self time of a gateway's CPU profile (cpu-per-request.mjs with BENCH_PROFILE_DIR) by the source
// file of the bundle each function came from (esbuild marks every module with a `// path` comment),
// then by area (core's stream module, core's turn, the adapter, the gateway's folders, undici,
// prom-client, node's own). Idle time and native `writev` (wall time in the syscall, which the
// process's CPU time counts only in part) are shown apart.
//   node bench/gateway/profile-by-source.mjs <file.cpuprofile> <gateway.cjs> [requests] [top=40]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const REPO_URL = pathToFileURL(new URL('../../', import.meta.url).pathname).href;

const [profileFile, bundleFile, requestsArg, topArg] = process.argv.slice(2);
if (!profileFile || !bundleFile) throw new Error('usage: profile-by-source.mjs <file.cpuprofile> <gateway.cjs> [requests] [top]');
const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
const requests = Number(requestsArg ?? 0);
const top = Number(topArg ?? 40);

// Module start lines of the bundle: `// packages/core/src/stream/sse-framer.ts` and the like.
const starts = [];
readFileSync(bundleFile, 'utf8')
  .split('\n')
  .forEach((line, index) => {
    const match = /^\/\/ ((?:packages|apps|node_modules|\.\.)\S*\.(?:ts|js|mjs|cjs|json))$/.exec(line);
    if (match) starts.push([index, match[1].replace(/^.*node_modules\//, 'node_modules/')]);
  });
const moduleAt = (line) => {
  let low = 0;
  let high = starts.length - 1;
  let found = '(bundle prelude)';
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle][0] <= line) {
      found = starts[middle][1];
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
};
const areaOf = (source) => {
  if (source.startsWith('packages/core/src/stream/')) return 'core: stream/';
  if (source.startsWith('packages/core/src/turn/')) return 'core: turn/';
  if (source.startsWith('packages/core/src/')) return `core: ${source.split('/')[3]}/`;
  if (source.startsWith('packages/')) return source.split('/').slice(0, 2).join('/');
  if (source.startsWith('apps/gateway/src/')) {
    const parts = source.split('/');
    return parts.length > 4 ? `gateway: ${parts[3]}/` : 'gateway: src/';
  }
  if (source.startsWith('node_modules/')) return source.split('/')[1].replace(/@[\d.]+.*$/, '');
  return source;
};

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const bySource = new Map();
const byArea = new Map();
const byFunction = new Map();
let busy = 0;
for (const [id, micros] of self) {
  const { callFrame } = nodes.get(id);
  const { url, functionName, lineNumber } = callFrame;
  let source;
  // The profiled process ran the bundle from its own (temporary) path: every file outside the repository is it.
  if (url.startsWith('file://') && !url.startsWith(REPO_URL)) source = moduleAt(lineNumber);
  else if (url.startsWith('node:')) source = url;
  else source = url === '' ? (functionName.startsWith('(') ? functionName : `(${functionName || 'native'})`) : url;
  const area = url.startsWith('node:') ? 'node internals' : url === '' ? source : areaOf(source);
  if (area === '(idle)') continue;
  busy += micros;
  bySource.set(source, (bySource.get(source) ?? 0) + micros);
  byArea.set(area, (byArea.get(area) ?? 0) + micros);
  const key = `${functionName || '(anonymous)'}  ${source}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const unit = requests > 0 ? 'µs per request' : 'ms';
const show = (micros) => (requests > 0 ? (micros / requests).toFixed(1) : (micros / 1000).toFixed(0)).padStart(7);
const print = (title, map, limit) => {
  process.stdout.write(`\n${title} (${unit}; busy ${show(busy)})\n`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) if (micros * 1000 >= busy) process.stdout.write(`${show(micros)}  ${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${key}\n`);
};
print('by area', byArea, 40);
print('by source file', bySource, top);
print('by function', byFunction, top);

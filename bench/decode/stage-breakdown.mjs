// Where a decoder's time goes, without HTTP: the served bytes, in 64 KiB
// reads from memory, through successive stages. Differences between rows
// attribute the gap to the floor:
//   floor       eventsource-parser only
//   floor+json  + JSON.parse of each record             → cost of JSON itself
//   map-sync    + our record→event mapping, callbacks    → cost of the mapping
//   map-batch   + one async generator yielding each event of a read's batch
//   ours        the shipped adapter.decodeStream          → cost of its iteration structure
// (map-* need the exported per-record decoder class: Chat and Messages only.)
//   node --expose-gc bench/decode/stage-breakdown.mjs [chat|messages|responses] [rounds=15]
import { performance } from 'node:perf_hooks';
import { renderWireStream } from './wire-streams.mjs';
import { REPO_ROOT, loadAdapters, loadEventsourceParser } from './resolve-deps.mjs';
import { median } from './report.mjs';

// READ_BYTES=256 approximates the one-record reads of a paced HTTP stream.
const READ_BYTES = Number(process.env.READ_BYTES ?? 65_536);
const RECORDS = 20_000;
const protocol = process.argv[2] ?? 'chat';
const rounds = Number(process.argv[3] ?? 15);

const plan = await renderWireStream(protocol, RECORDS);
const wire = Buffer.concat(plan.chunks);
const reads = [];
for (let offset = 0; offset < wire.length; offset += READ_BYTES) reads.push(new Uint8Array(wire.subarray(offset, offset + READ_BYTES)));
const makeBody = () => {
  let index = 0;
  return new ReadableStream({ pull: (controller) => (index < reads.length ? controller.enqueue(reads[index++]) : controller.close()) });
};

const adapters = await loadAdapters();
const { createParser } = await loadEventsourceParser();
const chatModule = await import(new URL('packages/adapter-chat/dist/index.js', `file://${REPO_ROOT}`).href);
const messagesModule = await import(new URL('packages/adapter-messages/dist/index.js', `file://${REPO_ROOT}`).href);

/** Per-record mapping of our decoder class, or undefined when the package does not export one. */
function makeRecordMapper() {
  if (protocol === 'chat') {
    const decoder = new chatModule.ChatChunkDecoder();
    return (record) => decoder.handleRecord(record, false);
  }
  if (protocol === 'messages') {
    const decoder = new messagesModule.MessagesStreamDecoder();
    return (record) => decoder.decodeRecord(record.event, record.data);
  }
  return undefined;
}

async function feedRecords(onRecord) {
  const parser = createParser({ onEvent: onRecord });
  const textDecoder = new TextDecoder();
  const reader = makeBody().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(textDecoder.decode(value, { stream: true }));
  }
}

async function* decodeBatched(body, mapRecord) {
  const batch = [];
  const parser = createParser({ onEvent: (record) => batch.push(...mapRecord(record)) });
  const textDecoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(textDecoder.decode(value, { stream: true }));
    for (const event of batch) yield event;
    batch.length = 0;
  }
}

const stages = {
  floor: async () => feedRecords(() => {}),
  'floor+json': async () => feedRecords((record) => record.data !== '[DONE]' && JSON.parse(record.data)),
  'map-sync': async () => {
    const mapRecord = makeRecordMapper();
    let count = 0;
    await feedRecords((record) => (count += mapRecord(record).length));
  },
  'map-batch': async () => {
    let count = 0;
    for await (const _event of decodeBatched(makeBody(), makeRecordMapper())) count += 1;
  },
  ours: async () => {
    let count = 0;
    for await (const _event of adapters[protocol].decodeStream(makeBody())) count += 1;
  },
};
const names = Object.keys(stages).filter((name) => !name.startsWith('map-') || makeRecordMapper() !== undefined);
const timings = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds + 2; round += 1) {
  for (const name of names) {
    globalThis.gc?.();
    const start = performance.now();
    await stages[name]();
    if (round >= 2) timings[name].push(performance.now() - start);
  }
}
const floor = median(timings.floor);
for (const name of names) {
  const ms = median(timings[name]);
  process.stdout.write(`${protocol.padEnd(9)} ${name.padEnd(10)} ${ms.toFixed(1).padStart(7)} ms  ${(floor / ms).toFixed(2)}× floor  ${((ms * 1000) / RECORDS).toFixed(2)} µs/record\n`);
}

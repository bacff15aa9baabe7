import type { Protocol } from '@turnguard/core';
import fc from 'fast-check';
import type { UpstreamEnding, UpstreamPlan } from './fault-upstream.test-helper.js';
import { cutAt } from './fault-upstream.test-helper.js';
import { sseRecord, type LineEnd } from './sse-wire.test-helper.js';

/**
 * What a record of a scripted upstream body is, by construction — the
 * oracle the fault schedules are checked against, never a decoding of the
 * bytes:
 * - `lead`, `block`, `text`, `reasoning`, `terminal`, `done`: the protocol's
 *   own records, each reaching the client once (`text` and `reasoning` are
 *   output: an attempt with one is never resent, R1.2);
 * - `usage`: Chat's usage chunk, reaching only a client that asked for it;
 * - `garbage`: an undecodable record before the end (an in-stream error):
 *   never relayed, and nothing of the body after it;
 * - `repeat`: a repeat of a structural record the decoder ignores (a second
 *   `message_start`, a block or item started or stopped twice): never relayed;
 * - `after-end`: anything after the protocol's proper end: never relayed (R8.13).
 */
export type RecordRole = 'lead' | 'block' | 'text' | 'reasoning' | 'terminal' | 'usage' | 'done' | 'garbage' | 'repeat' | 'after-end';

export interface WireRecord {
  role: RecordRole;
  text: string;
  /** What a client parses from it. */
  event: string | undefined;
  data: string;
  /** `text` / `reasoning` records: the delta they carry. */
  delta?: string;
}

/** How a body's bytes reach the gateway: one write per record, a few random cuts, or one write. */
export type Writes = { kind: 'per-record' } | { kind: 'cuts'; at: number[] } | { kind: 'whole' };

/** Where the upstream stops: nowhere (the whole body, then its proper end), after some records (then a clean end, FIN or RST), or at a byte (FIN or RST). */
export type Cut = { kind: 'none' } | { kind: 'records'; keep: number; ending: UpstreamEnding } | { kind: 'byte'; at: number; ending: 'fin' | 'rst' };

export interface BodySpec {
  reasoning: number;
  text: number;
  garbageAt: number | undefined;
  repeatAt: number | undefined;
  /** Chat: no usage chunk and no `[DONE]`; Messages: no `message_stop`. */
  dropTail: boolean;
  /** The body stops (no terminal frame, no tail) right after an answer's block or item started with no content yet (Messages: a text block; Responses: a message item). */
  openItem?: boolean;
  afterEnd: number[];
}

export type AttemptSpec = { kind: 'http-error'; status: 429 | 500 | 503 } | { kind: 'stream'; body: BodySpec; writes: Writes; cut: Cut };

export interface Schedule {
  protocol: Protocol;
  stream: boolean;
  eol: LineEnd;
  wantsUsage: boolean;
  attempts: AttemptSpec[];
  /** Streaming only: the client leaves after this many records. */
  abortAfter: number | undefined;
}

/** One attempt as the upstream plays it, with the records it is made of (none for an HTTP error). */
export interface PlayedAttempt {
  plan: UpstreamPlan;
  records: WireRecord[];
  /** Characters of the body the upstream writes before it stops. */
  sentChars: number;
  ending: UpstreamEnding;
}

// ---------------------------------------------------------------------------------------------
// Bodies, per protocol, with the role of every record.

function json(value: unknown): string {
  return JSON.stringify(value);
}

function record(role: RecordRole, data: string, eol: LineEnd, event?: string, delta?: string): WireRecord {
  return { role, text: sseRecord(data, eol, event), event, data, ...(delta === undefined ? {} : { delta }) };
}

function chatBody(attempt: number, spec: BodySpec, eol: LineEnd): WireRecord[] {
  const chunk = (fields: Record<string, unknown>): string => json({ id: `chatcmpl-a${attempt}`, object: 'chat.completion.chunk', created: 1, model: 'm', ...fields });
  const choice = (delta: Record<string, unknown>, finish: string | null = null): string => chunk({ choices: [{ index: 0, delta, finish_reason: finish }] });
  const records: WireRecord[] = [record('lead', choice({ role: 'assistant', content: '' }), eol)];
  for (let index = 0; index < spec.reasoning; index += 1) records.push(record('reasoning', choice({ reasoning_content: `a${attempt}r${index} ` }), eol, undefined, `a${attempt}r${index} `));
  for (let index = 0; index < spec.text; index += 1) records.push(record('text', choice({ content: `a${attempt}w${index} ` }), eol, undefined, `a${attempt}w${index} `));
  insertGarbage(records, spec, record('garbage', '{"choices":[{"delta":{"content":"bro', eol));
  insertRepeat(records, spec, (original) => ({ ...original }));
  const finish = record('terminal', choice({}, 'stop'), eol);
  const usage = record('usage', chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }), eol);
  const done = record('done', '[DONE]', eol);
  records.push(finish);
  if (!spec.dropTail) records.push(usage, done);
  const junk = [record('after-end', '[DONE]', eol), record('after-end', choice({}, 'stop'), eol), record('after-end', choice({ content: 'late' }), eol), record('after-end', '{"not json', eol), record('after-end', choice({ content: '' }), eol)];
  for (const pick of spec.afterEnd) records.push(junk[pick % junk.length]!);
  return records;
}

function messagesBody(attempt: number, spec: BodySpec, eol: LineEnd): WireRecord[] {
  const event = (role: RecordRole, type: string, fields: Record<string, unknown>, delta?: string): WireRecord => record(role, json({ type, ...fields }), eol, type, delta);
  const records: WireRecord[] = [
    event('lead', 'message_start', { message: { id: `msg_a${attempt}`, type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }),
  ];
  let index = 0;
  if (spec.reasoning > 0) {
    records.push(event('block', 'content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (let at = 0; at < spec.reasoning; at += 1) records.push(event('reasoning', 'content_block_delta', { index, delta: { type: 'thinking_delta', thinking: `a${attempt}r${at} ` } }, `a${attempt}r${at} `));
    records.push(event('block', 'content_block_stop', { index }));
    index += 1;
  }
  if (spec.text > 0) {
    records.push(event('block', 'content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (let at = 0; at < spec.text; at += 1) records.push(event('text', 'content_block_delta', { index, delta: { type: 'text_delta', text: `a${attempt}w${at} ` } }, `a${attempt}w${at} `));
    records.push(event('block', 'content_block_stop', { index }));
  }
  if (spec.openItem === true) records.push(event('block', 'content_block_start', { index: index + (spec.text > 0 ? 1 : 0), content_block: { type: 'text', text: '' } }));
  insertGarbage(records, spec, record('garbage', '{"type":"content_block_delta","index":0,"delta":{"type":"text_de', eol, 'content_block_delta'));
  insertRepeat(records, spec, (original) => (original.role === 'text' || original.role === 'reasoning' ? { ...original } : { ...original, role: 'repeat' }));
  if (spec.openItem === true) return records;
  records.push(event('terminal', 'message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } }));
  if (!spec.dropTail) records.push(event('done', 'message_stop', {}));
  const junk = [event('after-end', 'message_stop', {}), event('after-end', 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'late' } }), event('after-end', 'message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }), record('after-end', '{"type":"mess', eol, 'message_stop')];
  for (const pick of spec.afterEnd) records.push(junk[pick % junk.length]!);
  return records;
}

function responsesBody(attempt: number, spec: BodySpec, eol: LineEnd): WireRecord[] {
  // Sequence numbers are given once the records are in order (a repeat of a structural record keeps its original's).
  const event = (role: RecordRole, type: string, fields: Record<string, unknown>, delta?: string): WireRecord => record(role, json({ type, sequence_number: -1, ...fields }), eol, type, delta);
  const response = { id: `resp_a${attempt}`, object: 'response', created_at: 1, model: 'm' };
  const records: WireRecord[] = [event('lead', 'response.created', { response: { ...response, status: 'in_progress', output: [] } })];
  // The terminal response carries every finished item, as OpenAI's does (the JSON answer is that object, R8.6).
  const output: unknown[] = [];
  let outputIndex = 0;
  if (spec.reasoning > 0) {
    const id = `rs_a${attempt}`;
    records.push(event('block', 'response.output_item.added', { output_index: outputIndex, item: { id, type: 'reasoning', summary: [] } }));
    let summary = '';
    for (let at = 0; at < spec.reasoning; at += 1) {
      summary += `a${attempt}r${at} `;
      records.push(event('reasoning', 'response.reasoning_summary_text.delta', { item_id: id, output_index: outputIndex, summary_index: 0, delta: `a${attempt}r${at} ` }, `a${attempt}r${at} `));
    }
    const item = { id, type: 'reasoning', summary: [{ type: 'summary_text', text: summary }] };
    records.push(event('block', 'response.output_item.done', { output_index: outputIndex, item }));
    output.push(item);
    outputIndex += 1;
  }
  if (spec.text > 0) {
    const id = `msg_a${attempt}`;
    const at = { item_id: id, output_index: outputIndex, content_index: 0 };
    records.push(event('block', 'response.output_item.added', { output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }));
    records.push(event('block', 'response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } }));
    let text = '';
    for (let index = 0; index < spec.text; index += 1) {
      text += `a${attempt}w${index} `;
      records.push(event('text', 'response.output_text.delta', { ...at, delta: `a${attempt}w${index} ` }, `a${attempt}w${index} `));
    }
    const part = { type: 'output_text', text, annotations: [] };
    records.push(event('block', 'response.output_text.done', { ...at, text }));
    records.push(event('block', 'response.content_part.done', { ...at, part }));
    const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    records.push(event('block', 'response.output_item.done', { output_index: outputIndex, item }));
    output.push(item);
  }
  if (spec.openItem === true) {
    records.push(event('block', 'response.output_item.added', { output_index: outputIndex + (spec.text > 0 ? 1 : 0), item: { id: `msg_open_a${attempt}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }));
  }
  insertGarbage(records, spec, record('garbage', '{"type":"response.output_text.delta","delta":"bro', eol, 'response.output_text.delta'));
  // Only records whose repeat a client can tell by its own fields: the start, items added or done, deltas (a delta said twice).
  const repeatable = (original: WireRecord): boolean => original.role !== 'block' || /output_item\.(added|done)/.test(original.event ?? '');
  insertRepeat(records, spec, (original) => (repeatable(original) ? (original.role === 'text' || original.role === 'reasoning' ? { ...original } : { ...original, role: 'repeat' }) : undefined));
  if (spec.openItem === true) {
    numberResponsesRecords(records, eol);
    return records;
  }
  records.push(event('terminal', 'response.completed', { response: { ...response, status: 'completed', output, usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } } }));
  const junk = [event('after-end', 'response.completed', { response: { ...response, status: 'completed', output: [] } }), event('after-end', 'response.output_text.delta', { item_id: 'late', output_index: 9, content_index: 0, delta: 'late' }), record('after-end', '[DONE]', eol)];
  for (const pick of spec.afterEnd) records.push(junk[pick % junk.length]!);
  numberResponsesRecords(records, eol);
  return records;
}

/** Gives each Responses record its `sequence_number` in order; a structural repeat keeps its original's (the same record sent again). */
function numberResponsesRecords(records: WireRecord[], eol: LineEnd): void {
  let next = 0;
  let last = 0;
  for (const [index, entry] of records.entries()) {
    if (!entry.data.includes('"sequence_number":-1')) continue;
    const sequence = entry.role === 'repeat' || (entry.role === 'after-end' && index > 0 && records[index - 1]!.data === entry.data) ? last : next++;
    last = sequence;
    const data = entry.data.replace('"sequence_number":-1', `"sequence_number":${sequence}`);
    records[index] = { ...entry, data, text: sseRecord(data, eol, entry.event) };
  }
}

function insertGarbage(records: WireRecord[], spec: BodySpec, garbage: WireRecord): void {
  if (spec.garbageAt === undefined) return;
  records.splice(1 + (spec.garbageAt % records.length), 0, garbage);
}

function insertRepeat(records: WireRecord[], spec: BodySpec, repeatOf: (original: WireRecord) => WireRecord | undefined): void {
  if (spec.repeatAt === undefined) return;
  const at = spec.repeatAt % records.length;
  const original = records[at]!;
  if (original.role === 'garbage') return;
  const repeat = repeatOf(original);
  if (repeat !== undefined) records.splice(at + 1, 0, repeat);
}

export function buildBody(protocol: Protocol, attempt: number, spec: BodySpec, eol: LineEnd): WireRecord[] {
  switch (protocol) {
    case 'chat':
      return chatBody(attempt, spec, eol);
    case 'messages':
      return messagesBody(attempt, spec, eol);
    case 'responses':
      return responsesBody(attempt, spec, eol);
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Playing an attempt, and the oracle: what of a body must reach the client.

export function playAttempt(schedule: Schedule, attempt: AttemptSpec, number: number): PlayedAttempt {
  if (attempt.kind === 'http-error') {
    const body = schedule.protocol === 'messages' ? json({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }) : json({ error: { message: 'busy', type: 'server_error', code: null } });
    return { plan: { status: attempt.status, headers: attempt.status === 429 ? { 'retry-after-ms': '1' } : {}, pieces: [body] }, records: [], sentChars: 0, ending: 'end' };
  }
  const records = buildBody(schedule.protocol, number, attempt.body, schedule.eol);
  const text = records.map((entry) => entry.text).join('');
  const { cut } = attempt;
  const sentChars = cut.kind === 'none' ? text.length : cut.kind === 'records' ? records.slice(0, cut.keep).reduce((sum, entry) => sum + entry.text.length, 0) : Math.min(cut.at, text.length);
  const ending: UpstreamEnding = cut.kind === 'none' ? 'end' : cut.ending;
  const sent = text.slice(0, sentChars);
  const writes = attempt.writes;
  let pieces: string[];
  if (writes.kind === 'whole') pieces = [sent];
  else if (writes.kind === 'cuts') pieces = cutAt(sent, writes.at.map((at) => at % Math.max(1, sent.length)));
  else {
    pieces = [];
    let from = 0;
    for (const entry of records) {
      if (from >= sentChars) break;
      pieces.push(text.slice(from, Math.min(from + entry.text.length, sentChars)));
      from += entry.text.length;
    }
  }
  return { plan: { pieces: pieces.filter((piece) => piece !== ''), ending, gapMs: writes.kind === 'per-record' ? 1 : 0 }, records, sentChars, ending };
}

/** The characters after which a record is whole for core's framer: its blank line's first character (a CR waiting for its LF ends the line once nothing can follow). */
function wholeAfter(entry: WireRecord, eol: LineEnd): number {
  return entry.text.length - (eol === 'crlf' ? 1 : 0);
}

export interface ExpectedBody {
  /** The records the client must get from this body, in order, each once (as it parses them). */
  relayed: Array<{ event: string | undefined; data: string }>;
  /** A text or reasoning record reached runTurn's host: the attempt is never resent (R1.2). */
  output: boolean;
  /** Text output (R4.1: no recovery after text). */
  textOutput: boolean;
  /** The terminal frame arrived whole (R8.12: the turn is complete). */
  complete: boolean;
  /** Its joined text and reasoning deltas. */
  text: string;
  reasoning: string;
  /** What the relay must add for the protocol's proper end (R8.13). */
  missingEnd: Array<{ event: string | undefined; data: string }>;
  /** Responses: the text of the terminal event's own response object (a JSON answer is that object, R8.6). */
  terminalText: string | undefined;
}

/** What of a played body must reach a client (R8.13), from the records' roles alone. */
export function expectBody(schedule: Schedule, played: PlayedAttempt): ExpectedBody {
  const expected: ExpectedBody = { relayed: [], output: false, textOutput: false, complete: false, text: '', reasoning: '', missingEnd: [], terminalText: undefined };
  let offset = 0;
  let doneRelayed = false;
  for (const entry of played.records) {
    const whole = offset + wholeAfter(entry, schedule.eol) <= played.sentChars;
    offset += entry.text.length;
    if (!whole) break;
    if (entry.role === 'garbage' && !expected.complete) break;
    if (entry.role === 'after-end' || entry.role === 'repeat' || entry.role === 'garbage') continue;
    if (entry.role === 'usage' && !schedule.wantsUsage) continue;
    expected.relayed.push({ event: entry.event, data: entry.data });
    if (entry.role === 'text') {
      expected.output = true;
      expected.textOutput = true;
      expected.text += entry.delta!;
    }
    if (entry.role === 'reasoning') {
      expected.output = true;
      expected.reasoning += entry.delta!;
    }
    if (entry.role === 'terminal') {
      expected.complete = true;
      if (schedule.protocol === 'responses') expected.terminalText = responseText(JSON.parse(entry.data) as { response?: { output?: unknown[] } });
    }
    if (entry.role === 'done') doneRelayed = true;
  }
  if (expected.complete && !doneRelayed) {
    if (schedule.protocol === 'chat') expected.missingEnd.push({ event: undefined, data: '[DONE]' });
    if (schedule.protocol === 'messages') expected.missingEnd.push({ event: 'message_stop', data: '{"type":"message_stop"}' });
  }
  return expected;
}

function responseText(event: { response?: { output?: unknown[] } }): string {
  return (event.response?.output ?? [])
    .flatMap((item) => ((item as { type?: string }).type === 'message' ? ((item as { content?: Array<{ text?: string }> }).content ?? []) : []))
    .map((part) => part.text ?? '')
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Arbitraries.

/** `value` with the given chance, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, weight: number, of: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: of - weight, arbitrary: fc.constant(undefined) }, { weight, arbitrary });
}

const bodySpec = fc.record({
  reasoning: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })),
  // Now and then a long answer (30–80 KiB): reads far over 16 KiB, which core frames a part at a time.
  text: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 5, arbitrary: fc.integer({ min: 1, max: 5 }) }, { weight: 1, arbitrary: fc.integer({ min: 300, max: 800 }) }),
  garbageAt: sometimes(fc.nat(12), 1, 4),
  repeatAt: sometimes(fc.nat(12), 1, 4),
  dropTail: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  afterEnd: fc.oneof({ weight: 3, arbitrary: fc.constant([] as number[]) }, { weight: 2, arbitrary: fc.array(fc.nat(8), { minLength: 1, maxLength: 3 }) }),
  openItem: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

const writes: fc.Arbitrary<Writes> = fc.oneof(
  fc.constant({ kind: 'per-record' } as const),
  fc.record({ kind: fc.constant('cuts' as const), at: fc.array(fc.nat(4000), { minLength: 1, maxLength: 6 }) }),
  fc.constant({ kind: 'whole' } as const),
);

const cut: fc.Arbitrary<Cut> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' } as const) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('records' as const), keep: fc.nat(20), ending: fc.constantFrom<UpstreamEnding>('end', 'fin', 'rst') }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('byte' as const), at: fc.oneof({ weight: 4, arbitrary: fc.nat(3000) }, { weight: 1, arbitrary: fc.nat(90_000) }), ending: fc.constantFrom<'fin' | 'rst'>('fin', 'rst') }) },
);

const attempt: fc.Arbitrary<AttemptSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('http-error' as const), status: fc.constantFrom<429 | 500 | 503>(429, 500, 503) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('stream' as const), body: bodySpec, writes, cut }) },
);

/**
 * A thinking stream that ends (a clean EOF: R4.1's trigger; a FIN or RST is a network error, R4.2)
 * before any text, then what answers its recovery request: mostly a whole answer, sometimes a fault.
 */
const recoveryShaped: fc.Arbitrary<AttemptSpec[]> = fc.tuple(
  fc.record({
    kind: fc.constant('stream' as const),
    body: fc.record({ reasoning: fc.integer({ min: 1, max: 4 }), text: fc.constant(0), garbageAt: fc.constant(undefined), repeatAt: sometimes(fc.nat(12), 1, 4), dropTail: fc.boolean(), afterEnd: fc.constant([] as number[]), openItem: fc.boolean() }),
    writes,
    cut: fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('records' as const), keep: fc.integer({ min: 3, max: 6 }), ending: fc.constant<UpstreamEnding>('end') }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('byte' as const), at: fc.integer({ min: 300, max: 900 }), ending: fc.constantFrom<'fin' | 'rst'>('fin', 'rst') }) },
    ),
  }),
  fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('stream' as const), body: bodySpec.map((body) => ({ ...body, text: Math.max(1, body.text), garbageAt: undefined })), writes, cut: fc.constant({ kind: 'none' } as const) }) },
    { weight: 1, arbitrary: attempt },
  ),
);

export const scheduleArbitrary: fc.Arbitrary<Schedule> = fc
  .record({
    protocol: fc.constantFrom<Protocol>('chat', 'messages', 'responses'),
    stream: fc.boolean(),
    eol: fc.constantFrom<LineEnd>('lf', 'cr', 'crlf'),
    wantsUsage: fc.boolean(),
    attempts: fc.oneof({ weight: 3, arbitrary: fc.array(attempt, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: recoveryShaped }),
    abortAfter: sometimes(fc.nat(8), 1, 6),
  })
  .map((schedule) => (schedule.stream ? schedule : { ...schedule, abortAfter: undefined }));

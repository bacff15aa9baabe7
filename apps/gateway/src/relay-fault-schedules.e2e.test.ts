import type { Protocol } from '@turnguard/core';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultGateway, type FaultGateway } from './testing/fault-gateway.test-helper.js';
import { expectBody, playAttempt, scheduleArbitrary, type ExpectedBody, type PlayedAttempt, type Schedule } from './testing/fault-schedule.test-helper.js';
import { checkStrictStream } from './testing/strict-sse-clients.test-helper.js';

// R8.13, R8.12, R8.7, R1.2, R4.3, R6.1, R6.2: random schedules of what a hostile upstream does —
// CR / LF / CRLF line ends, records split anywhere, FIN and RST at any byte, garbage and repeated
// records, records after the end, missing ends, HTTP errors before a stream, clients that leave —
// over the three protocols, streamed and JSON, through the gateway on real sockets. A few hundred
// schedules here; `npm run test:faults` runs thousands (scripts/relay-faults.mjs).
const SCHEDULES = Number(process.env.TURNGUARD_FAULT_SCHEDULES ?? 300);
const SEED = Number(process.env.TURNGUARD_FAULT_SEED ?? 20261207);

let faults: FaultGateway;
beforeAll(async () => {
  faults = await startFaultGateway({ retry: { initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 } });
});
afterAll(() => faults.close());

type Json = Record<string, any>;
type ParsedRecord = { event?: string | undefined; data: string };

interface ClientView {
  status: number;
  records: EventSourceMessage[];
  json: Json | undefined;
  aborted: boolean;
}

/** Where the running schedule is waiting (for a report if it never ends). */
let stage = '';
const TOTALS = { lf: 0, cr: 0, crlf: 0, chat: 0, messages: 0, responses: 0, schedules: 0, streamed: 0, json: 0, aborted: 0, completed: 0, recovered: 0, failed: 0, retried: 0, recoveryRequests: 0, droppedAfterEnd: 0 };

/** The client: reads the SSE body with an independent parser (eventsource-parser), leaving after `abortAfter` records. */
async function readAsClient(schedule: Schedule, response: Response, controller: AbortController): Promise<ClientView> {
  if (!schedule.stream || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const text = await response.text();
    let json: Json | undefined;
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = undefined;
    }
    return { status: response.status, records: [], json, aborted: false };
  }
  const records: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (record) => records.push(record) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let aborted = false;
  try {
    for (;;) {
      if (schedule.abortAfter !== undefined && records.length >= schedule.abortAfter) {
        aborted = true;
        controller.abort();
        break;
      }
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch {
    aborted = true;
  }
  if (!aborted) parser.reset({ consume: true });
  return { status: response.status, records, json: undefined, aborted };
}

function contentOf(protocol: Protocol, records: readonly ParsedRecord[]): { text: string; reasoning: string } {
  let text = '';
  let reasoning = '';
  for (const record of records) {
    let body: Json;
    try {
      body = JSON.parse(record.data) as Json;
    } catch {
      continue;
    }
    if (protocol === 'chat') {
      const delta = body.choices?.[0]?.delta ?? {};
      if (typeof delta.content === 'string') text += delta.content;
      if (typeof delta.reasoning_content === 'string') reasoning += delta.reasoning_content;
    } else if (protocol === 'messages') {
      if (body.type === 'content_block_delta' && body.delta?.type === 'text_delta') text += body.delta.text;
      if (body.type === 'content_block_delta' && body.delta?.type === 'thinking_delta') reasoning += body.delta.thinking;
    } else {
      if (body.type === 'response.output_text.delta') text += body.delta;
      if (body.type === 'response.reasoning_summary_text.delta') reasoning += body.delta;
    }
  }
  return { text, reasoning };
}

function jsonText(protocol: Protocol, json: Json): string {
  if (protocol === 'chat') return json.choices?.[0]?.message?.content ?? '';
  if (protocol === 'messages') return (json.content ?? []).filter((block: Json) => block.type === 'text').map((block: Json) => block.text).join('');
  return (json.output ?? []).filter((item: Json) => item.type === 'message').flatMap((item: Json) => item.content ?? []).map((part: Json) => part.text ?? '').join('');
}

const same = (a: ParsedRecord, b: ParsedRecord): boolean => a.data === b.data && (a.event ?? undefined) === (b.event ?? undefined);

/** Per schedule: its samples, and how many had their response head (the upstream's log is counted by the header the client sent). */
const ACCOUNTS: Array<{ label: string; samples: number; withHead: number }> = [];

/** The request heads the upstream parsed for schedule `label` (the gateway forwards the client's headers, R8.6). */
const headsOf = (label: string): number => faults.upstream.heads.filter((head) => head.headers['x-fault-schedule'] === label).length;

/** R6.1: every physical request is one sample; one with its response head was certainly seen by the upstream, one without may be seen late or never. */
function checkAccount(account: { label: string; samples: number; withHead: number }): string[] {
  const heads = headsOf(account.label);
  if (heads < account.withHead || heads > account.samples) return [`${account.samples} samples (${account.withHead} with a response head) for ${heads} upstream request heads`];
  return [];
}

/** Runs one schedule through the gateway and returns what broke (empty: nothing). */
async function runSchedule(schedule: Schedule): Promise<string[]> {
  const problems: string[] = [];
  const { upstream, sink } = faults;
  const label = String(ACCOUNTS.length);
  const headsBefore = upstream.heads.length;
  const samplesBefore = sink.samples.length;
  const turnsBefore = sink.turns.length;
  const played: PlayedAttempt[] = schedule.attempts.map((attempt, index) => playAttempt(schedule, attempt, index + 1));
  upstream.labelled.set(label, played.map((attempt) => attempt.plan));

  const controller = new AbortController();
  const body: Record<string, unknown> = { stream: schedule.stream };
  if (schedule.protocol === 'chat' && schedule.wantsUsage && schedule.stream) body.stream_options = { include_usage: true };
  let view: ClientView;
  stage = 'the client';
  try {
    view = await readAsClient(schedule, await faults.post(schedule.protocol, body, controller.signal, { 'x-fault-schedule': label }), controller);
  } catch {
    view = { status: 0, records: [], json: undefined, aborted: true };
  }
  stage = 'the turn record';
  await sink.waitForTurns(turnsBefore + 1);
  stage = 'the upstream';
  await upstream.settled();
  stage = 'done';
  const heads = upstream.heads.slice(headsBefore).filter((head) => head.headers['x-fault-schedule'] === label);
  const samples = sink.samples.slice(samplesBefore);
  const turns = sink.turns.slice(turnsBefore);
  const turn = turns[0]!;

  // R6.1, R6.2: one sample per physical request, one turn per client request.
  if (turns.length !== 1) problems.push(`${turns.length} turns recorded for one client request`);
  const account = { label, samples: samples.length, withHead: samples.filter((sample) => (sample as { noResponseHead?: boolean }).noResponseHead !== true).length };
  ACCOUNTS.push(account);
  problems.push(...checkAccount(account));
  if (turn.physicalRequests !== samples.length) problems.push(`the turn counts ${turn.physicalRequests} physical requests, ${samples.length} samples`);

  // What each consumed body was, and the one committed to: the first with output or a terminal frame.
  const bodies: Array<{ head: number; expected: ExpectedBody }> = [];
  heads.forEach((_head, index) => {
    const attempt = played[index];
    if (attempt !== undefined && attempt.records.length > 0) bodies.push({ head: index, expected: expectBody(schedule, attempt) });
  });
  const committed = schedule.stream ? bodies.find((entry) => entry.expected.output || entry.expected.complete) : heldAnswerBody(bodies, heads);

  // R1.2, R4.3: nothing is resent after output; after a reasoning-only cut, one recovery request at most.
  if (committed !== undefined) {
    const after = heads.slice(committed.head + 1);
    if (after.length > 1) problems.push(`${after.length} requests after the attempt with output`);
    if (after.length === 1) {
      TOTALS.recoveryRequests += 1;
      const { expected } = committed;
      if (expected.textOutput || expected.complete) problems.push('a request after an attempt with text or a terminal frame');
      else if (!JSON.stringify(after[0]!.body ?? {}).includes(expected.reasoning.trim().split(' ')[0]!)) problems.push('the request after output is not a recovery carrying the checkpoint');
    }
  }
  const recoveryBody = committed === undefined ? undefined : played[committed.head + 1];
  const recovery = recoveryBody !== undefined && heads.length > committed!.head + 1 && recoveryBody.records.length > 0 ? expectBody(schedule, recoveryBody) : undefined;
  if (committed?.expected.complete === true && !view.aborted && turn.outcome !== 'ok') problems.push(`a turn whose terminal frame arrived ended ${turn.outcome} (R8.12)`);

  if (!schedule.stream) {
    TOTALS.json += 1;
    if (turn.outcome === 'ok') {
      if (view.status !== 200 || view.json === undefined) problems.push(`a complete turn answered ${view.status}`);
      else {
        const text = jsonText(schedule.protocol, view.json);
        // Responses: the upstream's own terminal object as it came (R8.6); the others: what the SDK accumulates from the records.
        const source = turn.recovered ? recovery : committed?.expected;
        const expectedText = schedule.protocol === 'responses' && !turn.recovered ? (source?.terminalText ?? source?.text ?? '') : (source?.text ?? '');
        if (text !== expectedText) problems.push(`JSON text ${JSON.stringify(text)}, expected ${JSON.stringify(expectedText)}`);
      }
    } else if (view.status === 200) problems.push(`a ${turn.outcome} turn answered 200`);
    return problems;
  }

  TOTALS.streamed += 1;
  if (view.aborted) TOTALS.aborted += 1;
  const records = view.records;
  problems.push(...checkStrictStream(schedule.protocol, records, { wantsUsage: schedule.wantsUsage, unterminated: view.aborted || view.status !== 200 }));
  if (view.status !== 200) {
    if (committed?.expected.output === true && !view.aborted) problems.push(`answered ${view.status} although an attempt had output`);
    return problems;
  }
  // No record lost, doubled or invented: the committed body's records, exactly, then only what the encoder must add.
  const raw = committed?.expected.relayed ?? [];
  const prefixLength = view.aborted ? Math.min(raw.length, records.length) : raw.length;
  for (let index = 0; index < prefixLength; index += 1) {
    const got = records[index];
    if (got === undefined || !same(got, raw[index]!)) {
      problems.push(`record #${index}: got ${JSON.stringify(got)}, expected ${JSON.stringify(raw[index])}`);
      return problems;
    }
  }
  if (view.aborted) return problems;
  const rest = records.slice(raw.length);
  const restContent = contentOf(schedule.protocol, rest);
  if (turn.outcome === 'ok' && !turn.recovered) {
    const missing = committed?.expected.missingEnd ?? [];
    if (committed === undefined) problems.push('a complete turn with no attempt that had output or a terminal frame');
    else if (rest.length !== missing.length || !rest.every((record, index) => same(record, missing[index]!))) {
      problems.push(`after the upstream's records: ${JSON.stringify(rest)}, expected ${JSON.stringify(missing)}`);
    }
  } else {
    // The encoder speaks from here: a recovery's own content, then the protocol's end or error ending.
    const allowedText = recovery?.text ?? '';
    const allowedReasoning = recovery?.reasoning ?? '';
    if (turn.recovered ? restContent.text !== allowedText : !allowedText.startsWith(restContent.text)) problems.push(`encoded text ${JSON.stringify(restContent.text)}, recovery had ${JSON.stringify(allowedText)}`);
    if (!allowedReasoning.startsWith(restContent.reasoning)) problems.push(`encoded reasoning ${JSON.stringify(restContent.reasoning)}, recovery had ${JSON.stringify(allowedReasoning)}`);
  }
  if (turn.outcome === 'ok') TOTALS[turn.recovered ? 'recovered' : 'completed'] += 1;
  else TOTALS.failed += 1;
  if (heads.length > 1) TOTALS.retried += 1;
  if (samples.some((sample) => sample.warnings.includes('relay_dropped_after_end'))) TOTALS.droppedAfterEnd += 1;
  return problems;
}

/**
 * A JSON client is shown nothing until the end: an attempt that failed after
 * output is dropped and the request sent again as the client sent it
 * (decision 0430), unless it was a thinking-only cut that R4 recovers (the
 * next request carries its checkpoint). The body the answer is judged by is
 * the first with output or a terminal frame that was not dropped.
 */
function heldAnswerBody<Body extends { head: number; expected: ExpectedBody }>(bodies: Body[], heads: Array<{ body?: unknown }>): Body | undefined {
  const candidates = bodies.filter((entry) => entry.expected.output || entry.expected.complete);
  return candidates.find((entry) => {
    const next = heads[entry.head + 1];
    if (entry.expected.complete || next === undefined) return true;
    const firstWord = entry.expected.reasoning.trim().split(' ')[0]!;
    const carriesCheckpoint = !entry.expected.textOutput && firstWord !== '' && JSON.stringify(next.body ?? {}).includes(firstWord);
    return carriesCheckpoint;
  });
}

describe('the relay under random fault schedules (R8.13, R8.12, R8.7, R1.2, R6.1)', () => {
  it(`${SCHEDULES} schedules, seed ${SEED}: no record lost, doubled or invented; one start and one end; indices grow; no resend after output; samples = request heads`, async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        TOTALS.schedules += 1;
        TOTALS[schedule.eol] += 1;
        TOTALS[schedule.protocol] += 1;
        if (process.env.TURNGUARD_FAULT_REPORT === '1' && TOTALS.schedules % 500 === 0) console.log(`relay fault schedules: ${TOTALS.schedules} run`);
        let timer: NodeJS.Timeout | undefined;
        const stuck = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([`the schedule did not end within 10 s (waiting for ${stage})`]), 10_000)));
        const problems = await Promise.race([runSchedule(schedule), stuck]).finally(() => clearTimeout(timer));
        expect(problems, JSON.stringify(schedule)).toEqual([]);
      }),
      { numRuns: SCHEDULES, seed: SEED, endOnFailure: process.env.TURNGUARD_FAULT_SHRINK !== '1' },
    );
    // Heads that arrive late (a request aborted in flight) are counted where they belong, once all are in.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ACCOUNTS.flatMap(checkAccount)).toEqual([]);
    const headless = ACCOUNTS.reduce((sum, account) => sum + account.samples - account.withHead, 0);
    const seenLate = ACCOUNTS.reduce((sum, account) => sum + Math.max(0, headsOf(account.label) - account.withHead), 0);
    if (process.env.TURNGUARD_FAULT_REPORT === '1') console.log(`relay fault schedules: ${JSON.stringify({ seed: SEED, ...TOTALS, samplesWithNoResponseHead: headless, ofThemSeenByTheUpstream: seenLate, violations: 0 })}`);
  }, 600_000);
});

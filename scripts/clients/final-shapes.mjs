#!/usr/bin/env node
// Which in-stream error shape does each real client treat as final (no resend)?
// Each client talks straight to a loopback upstream (no gateway) that answers every
// turn with thinking, part of an answer, then a final error in the shape under test;
// the number of turn requests it sent is the answer (1 = final). Offline, inside
// `unshare -n` like run-clients.mjs. Read-only evidence for decision 0360.
// --gateway: the clients go through the built gateway (`node apps/gateway/dist/cli.js serve`) and the
// upstream only cuts each turn after part of the answer; what the gateway then writes is under test.
// Usage: node scripts/clients/final-shapes.mjs [--only claude|codex|opencode|qwen] [--shape name] [--gateway]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeRun, codexRun } from './clients.mjs';
import { startGateway } from './gateway-process.mjs';
import { installClients } from './install-clients.mjs';
import { installExtraClients, opencodeRun, qwenRun } from './extra-clients.mjs';
import { runClient } from './run-client.mjs';
import { chunks, fakeId, startSse, writeEvent } from './sse.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS_DIR = join(ROOT, '.cache', 'clients', 'runs');
const INSIDE_FLAG = '--inside-netns';
const THOUGHT = 'Weighing the two options before answering. '.repeat(8);
const PARTIAL = 'The answer starts here and is cut ';
/** --gateway: the upstream's body just ends after part of the answer (no terminal frame, no error). */
const CUT = { cut: true };

/** Candidate final frames per protocol, each after thinking and part of an answer. */
const SHAPES = {
  messages: {
    'api_error': { type: 'api_error', message: 'The stream was cut after output reached the client; the turn failed.' },
    'overloaded_error': { type: 'overloaded_error', message: 'Overloaded' },
    'invalid_request_error': { type: 'invalid_request_error', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
    'turn_failed (own type)': { type: 'turn_failed', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
  },
  responses: {
    'server_error': { code: 'server_error', message: 'The stream was cut after output reached the client.' },
    'STREAM_CUT (own code)': { code: 'STREAM_CUT', message: 'The stream was cut after output reached the client.' },
    'invalid_prompt': { code: 'invalid_prompt', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
    'context_length_exceeded': { code: 'context_length_exceeded', message: 'context' },
  },
  chat: {
    'server_error (gateway today)': { type: 'server_error', code: 'STREAM_CUT', message: 'The stream failed after output reached the client (TRANSPORT).' },
    'invalid_request_error, plain words': { type: 'invalid_request_error', code: 'TURN_FAILED', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
    'turn_failed (own type), plain words': { type: 'turn_failed', code: 'TURN_FAILED', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
    'server_error, plain words': { type: 'server_error', code: 'TURN_FAILED', message: 'The turn failed after output reached the client; resending it as is would repeat it.' },
  },
};

function streamMessagesFailure(res, shape) {
  startSse(res, 'request-id', fakeId('req_011'));
  const usage = { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  writeEvent(res, 'message_start', { type: 'message_start', message: { id: fakeId('msg_01'), type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage } });
  writeEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
  for (const thinking of chunks(THOUGHT, 40)) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } });
  writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  writeEvent(res, 'content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
  for (const text of chunks(PARTIAL)) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } });
  if (!shape.cut) writeEvent(res, 'error', { type: 'error', error: shape });
  res.end();
}

function streamResponsesFailure(res, shape) {
  startSse(res, 'x-request-id', fakeId('req_'));
  let sequence_number = 0;
  const emit = (type, fields) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...fields })}\n\n`);
  const id = fakeId('resp_');
  const response = (status, extra = {}) => ({ id, object: 'response', created_at: 1, status, error: null, incomplete_details: null, model: 'gpt-5-codex', output: [], ...extra });
  emit('response.created', { response: response('in_progress') });
  const rs = fakeId('rs_');
  emit('response.output_item.added', { output_index: 0, item: { id: rs, type: 'reasoning', summary: [] } });
  emit('response.reasoning_summary_part.added', { item_id: rs, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
  for (const delta of chunks(THOUGHT, 40)) emit('response.reasoning_summary_text.delta', { item_id: rs, output_index: 0, summary_index: 0, delta });
  emit('response.output_item.done', { output_index: 0, item: { id: rs, type: 'reasoning', summary: [{ type: 'summary_text', text: THOUGHT }] } });
  const msg = fakeId('msg_');
  emit('response.output_item.added', { output_index: 1, item: { id: msg, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
  emit('response.content_part.added', { item_id: msg, output_index: 1, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } });
  for (const delta of chunks(PARTIAL)) emit('response.output_text.delta', { item_id: msg, output_index: 1, content_index: 0, delta });
  if (!shape.cut) {
    emit('error', { error: { type: shape.code, code: shape.code, message: shape.message, param: null } });
    emit('response.failed', { response: response('failed', { error: { code: shape.code, message: shape.message } }) });
  }
  res.end();
}

function streamChatFailure(res, shape) {
  startSse(res, 'x-request-id', fakeId('req_'));
  const id = fakeId('chatcmpl-');
  const chunk = (delta) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'tg-model', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
  chunk({ role: 'assistant', content: '' });
  for (const reasoning_content of chunks(THOUGHT, 40)) chunk({ reasoning_content });
  for (const content of chunks(PARTIAL)) chunk({ content });
  if (!shape.cut) res.write(`data: ${JSON.stringify({ error: { message: shape.message, type: shape.type, param: null, code: shape.code } })}\n\ndata: [DONE]\n\n`);
  res.end();
}

const PROTOCOL_OF = { claude: 'messages', codex: 'responses', opencode: 'chat', qwen: 'chat' };

/** Every turn request gets the failure; side requests (titles, model lists, token counts) a plain answer. */
async function startUpstream() {
  const state = { shape: undefined, turns: 0 };
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (part) => (text += part));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      let body;
      try { body = JSON.parse(text); } catch { body = undefined; }
      if (req.method === 'GET' && /\/models(\/[^/]+)?$/.test(path)) return sendModels(res, 'anthropic-version' in req.headers);
      if (path.endsWith('/count_tokens')) return json(res, 200, { input_tokens: 10 });
      const isTurn = Array.isArray(body?.tools) && body.tools.length > 0 || path.endsWith('/responses');
      if (!isTurn || body?.stream !== true) return sendSideAnswer(res, path, body);
      state.turns += 1;
      if (path.endsWith('/messages')) return streamMessagesFailure(res, state.shape);
      if (path.endsWith('/responses')) return streamResponsesFailure(res, state.shape);
      return streamChatFailure(res, state.shape);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendModels(res, anthropic) {
  if (anthropic) return json(res, 200, { data: [{ type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude', created_at: '2025-09-29T00:00:00Z' }], has_more: false });
  return json(res, 200, { object: 'list', data: [{ id: 'tg-model', object: 'model', created: 1, owned_by: 'turnguard' }] });
}

function sendSideAnswer(res, path, body) {
  const text = 'side answer';
  if (path.endsWith('/messages')) {
    if (body?.stream === true) {
      startSse(res, 'request-id', fakeId('req_011'));
      const usage = { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
      writeEvent(res, 'message_start', { type: 'message_start', message: { id: fakeId('msg_01'), type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage } });
      writeEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
      writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
      writeEvent(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } });
      writeEvent(res, 'message_stop', { type: 'message_stop' });
      return res.end();
    }
    return json(res, 200, { id: fakeId('msg_01'), type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
  }
  if (body?.stream === true) {
    startSse(res, 'x-request-id', fakeId('req_'));
    const id = fakeId('chatcmpl-');
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'tg-model', choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'tg-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\ndata: [DONE]\n\n`);
    return res.end();
  }
  return json(res, 200, { id: fakeId('chatcmpl-'), object: 'chat.completion', created: 1, model: 'tg-model', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
}

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function runInside() {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  mkdirSync(RUNS_DIR, { recursive: true });
  const binaries = { ...installClients(ROOT, () => {}), ...installExtraClients(ROOT, () => {}) };
  const builders = { claude: claudeRun, codex: codexRun, opencode: opencodeRun, qwen: qwenRun };
  const upstream = await startUpstream();
  const through = process.argv.includes('--gateway') ? await startGateway(ROOT, Number(new URL(upstream.url).port)) : undefined;
  const target = through === undefined ? upstream.url : `http://127.0.0.1:${through.port}`;
  const only = option('--only');
  const onlyShape = option('--shape');
  const outDir = mkdtempSync(join(RUNS_DIR, 'final-shapes-'));
  try {
    for (const client of Object.keys(builders)) {
      if (only && client !== only) continue;
      const shapes = through === undefined ? SHAPES[PROTOCOL_OF[client]] : { 'cut after output, through the gateway': CUT };
      for (const [name, shape] of Object.entries(shapes)) {
        if (onlyShape && name !== onlyShape) continue;
        upstream.state.shape = shape;
        upstream.state.turns = 0;
        const run = await runClient(builders[client](binaries[client], target, 'Think it over, then pick option A or B.', RUNS_DIR), 240);
        const file = join(outDir, `${client}-${name.replace(/[^a-z0-9]+/gi, '-')}.txt`);
        writeFileSync(file, run.output);
        const tail = run.output.trim().split('\n').slice(-2).join(' ⏎ ').slice(0, 220);
        console.log(`${client.padEnd(8)} ${PROTOCOL_OF[client].padEnd(9)} ${name.padEnd(38)} turns sent: ${upstream.state.turns}, exit ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}, ${run.seconds.toFixed(1)} s — ${tail}`);
      }
    }
  } finally {
    await through?.stop();
    await upstream.close();
  }
}

if (process.argv.includes(INSIDE_FLAG)) await runInside();
else {
  installClients(ROOT, (line) => process.stderr.write(`[final-shapes] ${line}\n`));
  installExtraClients(ROOT, (line) => process.stderr.write(`[final-shapes] ${line}\n`));
  if (process.argv.includes('--gateway')) {
    execFileSync('npx', ['-y', 'pnpm@12.4.2', 'turbo', 'run', 'build', '--filter=@turnguard/gateway...', '--output-logs=errors-only'],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  }
  const inner = spawnSync('unshare', ['-n', process.execPath, fileURLToPath(import.meta.url), INSIDE_FLAG, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(inner.status ?? 2);
}

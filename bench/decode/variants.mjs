// The consumers being compared, for one protocol. Each runs one request to
// the loopback server and consumes the whole stream, returning how many items
// it produced; each checks that it saw the stream it was served, so a broken
// decoder cannot look fast by doing nothing.
import { BENCH_MODELS } from './wire-streams.mjs';
import { loadAdapters, loadEventsourceParser, loadSdks } from './resolve-deps.mjs';

export const VARIANT_NAMES = ['bytes', 'floor', 'floor+json', 'ours', 'sdk'];

/** What each variant is, for the report. */
export const VARIANT_LABELS = {
  bytes: 'fetch, read bytes only (transport ceiling)',
  floor: 'fetch + eventsource-parser, parse only (the floor)',
  'floor+json': 'floor + JSON.parse of each data field (reference)',
  ours: 'our decoder (adapter.decodeStream)',
  sdk: 'official SDK, create({stream:true}) iterated',
};

const API_PATHS = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

export function makeRequestBody(protocol) {
  const model = BENCH_MODELS[protocol];
  const input = [{ role: 'user', content: 'Count to three.' }];
  if (protocol === 'chat') return { model, messages: input, stream: true, stream_options: { include_usage: true } };
  if (protocol === 'messages') return { model, max_tokens: 64_000, messages: input, stream: true };
  return { model, input, stream: true };
}

function assertCount(variant, count, minimum) {
  if (count < minimum) throw new Error(`bench: ${variant} produced ${count} items, expected at least ${minimum}`);
  return count;
}

async function readAll(body, onText) {
  const reader = body.getReader();
  const textDecoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onText(textDecoder.decode(value, { stream: true }));
  }
  onText(textDecoder.decode());
}

/**
 * `{ name: () => Promise<items> }` for one protocol against a server origin
 * and stream size. Clients are built once, like a long-lived gateway's.
 * `options.adapters`: decoders to use instead of each package's dist (turn-run.mjs bundles them from source trees).
 */
export async function createVariants(protocol, origin, records, options = {}) {
  const [adapters, { createParser }, { OpenAI, Anthropic }] = await Promise.all([options.adapters ?? loadAdapters(), loadEventsourceParser(), loadSdks()]);
  const prefix = `${origin}/n/${records}`;
  const url = `${prefix}${API_PATHS[protocol]}`;
  const body = JSON.stringify(makeRequestBody(protocol));
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
  const post = async () => {
    const response = await fetch(url, { method: 'POST', headers, body });
    if (!response.ok || response.body === null) throw new Error(`bench: HTTP ${response.status} from ${url}`);
    return response.body;
  };
  const adapter = adapters[protocol];
  const openai = new OpenAI({ baseURL: `${prefix}/v1`, apiKey: 'bench-not-a-key', maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: prefix, apiKey: 'bench-not-a-key', maxRetries: 0 });
  const minimum = Math.floor(records * 0.9);

  return {
    async bytes() {
      let length = 0;
      const reader = (await post()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.byteLength;
      }
      return assertCount('bytes', length, records);
    },
    async floor() {
      let count = 0;
      const parser = createParser({ onEvent: () => (count += 1) });
      await readAll(await post(), (text) => parser.feed(text));
      return assertCount('floor', count, records);
    },
    async 'floor+json'() {
      let count = 0;
      const parser = createParser({
        onEvent: (event) => {
          if (event.data !== '[DONE]') JSON.parse(event.data);
          count += 1;
        },
      });
      await readAll(await post(), (text) => parser.feed(text));
      return assertCount('floor+json', count, records);
    },
    async ours() {
      let count = 0;
      let last;
      for await (const event of adapter.decodeStream(await post())) {
        // An error event means the decoder rejected the wire shape: the numbers would be meaningless.
        if (event.type === 'error') throw new Error(`bench: ${protocol} decoder emitted an error event (${event.error.code})`);
        count += 1;
        last = event;
      }
      if (last?.type !== 'stream-end' || !last.terminalFrameSeen) throw new Error(`bench: ${protocol} decoder did not see the terminal frame`);
      return assertCount('ours', count, minimum);
    },
    async sdk() {
      const request = makeRequestBody(protocol);
      const stream =
        protocol === 'chat'
          ? await openai.chat.completions.create(request)
          : protocol === 'responses'
            ? await openai.responses.create(request)
            : await anthropic.messages.create(request);
      let count = 0;
      for await (const _chunk of stream) count += 1;
      return assertCount('sdk', count, minimum);
    },
  };
}

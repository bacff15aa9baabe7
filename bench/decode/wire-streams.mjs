// The streams the bench serves: exactly N SSE records in each protocol's real
// wire shape, rendered by @turnguard/testkit's wire writers (which its own
// tests check against the official SDKs and vercel/ai's recordings). A
// reasoning phase (20 % of the deltas) then answer text, usage and the
// protocol's terminal frames, so each decoder runs its reasoning, text, usage
// and finish paths.
import { loadTestkit } from './resolve-deps.mjs';

export const PROTOCOLS = ['chat', 'messages', 'responses'];

/** What the request body would say; the wire writers take the model from it. */
export const BENCH_MODELS = { chat: 'gpt-4.1-mini-2025-04-14', messages: 'claude-sonnet-4-6', responses: 'gpt-5.1' };

/** Words per delta = the testkit defaults (Chat/Responses ≈ one token, Messages a few words). */
const WORDS_PER_DELTA = { chat: 1, messages: 3, responses: 1 };

function makeWords(testkit, count) {
  const words = testkit.makeFillerText(count * 9 + 64).match(/\s*\S+/g) ?? [];
  if (words.length < count) throw new Error('bench: filler text too short');
  return words.slice(0, count).join('');
}

function renderChunks(testkit, protocol, reasoningDeltas, textDeltas) {
  const perDelta = WORDS_PER_DELTA[protocol];
  const builder = testkit.scenario
    .for(protocol)
    .wordsPerDelta(perDelta)
    .reasoning(makeWords(testkit, reasoningDeltas * perDelta))
    .text(makeWords(testkit, textDeltas * perDelta))
    .usage({ input: 1200, output: reasoningDeltas + textDeltas, reasoning: reasoningDeltas });
  const requestBody = { model: BENCH_MODELS[protocol], stream: true };
  return testkit.planReply({ scenario: builder.build(), requestBody, serial: 1 });
}

/**
 * A reply plan (status, headers, one body chunk per SSE record) with exactly
 * `recordCount` records. The framing overhead per protocol is found by
 * rendering, not hand-counted, so it stays right if the wire writers change.
 */
export async function renderWireStream(protocol, recordCount) {
  const testkit = await loadTestkit();
  const reasoningDeltas = Math.max(1, Math.floor(recordCount * 0.2));
  let textDeltas = recordCount - reasoningDeltas;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const plan = renderChunks(testkit, protocol, reasoningDeltas, textDeltas);
    const difference = recordCount - plan.chunks.length;
    if (difference === 0) return plan;
    textDeltas += difference;
    if (textDeltas < 1) break;
  }
  throw new Error(`bench: cannot render exactly ${recordCount} ${protocol} records`);
}

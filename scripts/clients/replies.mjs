// What the scripted upstream answers to a client's main request, per scenario.
// Markers are distinctive words the harness looks for in what the client printed.
import { hasToolMessage } from './chat-frames.mjs';
import { hasToolResult } from './messages-frames.mjs';
import { hasFunctionOutput } from './responses-frames.mjs';

export const MARK = {
  plain: 'turnguard-plain-answer: 42 is the answer.',
  toolEcho: 'turnguard-tool-ok',
  toolDone: 'turnguard-tool-done: the command printed the marker.',
  thought: 'turnguard-thought: weighing the two options before answering.',
  recovered: 'turnguard-recovered-answer: option B, because it keeps the turn alive.',
  partial: 'turnguard-partial-answer ',
  fallback: 'turnguard-fallback-answer: the configured fallback answered for the primary.',
  // One sentence the upstream sends in two requests: cut after the first half, continued with the rest (R11.6).
  continuedFirst: 'turnguard-continued-answer: the first half of this sentence came from the cut stream ',
  continuedRest: 'and the second half from the continuation.',
  otherFamily: 'turnguard-other-family-answer: a Messages model answered when both of the first two were down.',
};

/** The model every chain of the harness's gateway config falls back to (fallback-503). */
export const FALLBACK_MODEL = 'turnguard-fallback';
/** The chain's last entry, on a Messages upstream that takes a prefill: another family for every client but Claude Code. */
export const CONTINUER_MODEL = 'turnguard-continuer';

/** A continuation request (R11.6): the client's messages end with the partial answer as an assistant prefill. */
function isContinuation(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages.at(-1)?.role === 'assistant';
}

// Long enough to be a real think, so core's recovery has a checkpoint to carry.
const THOUGHT = `${MARK.thought} ${'Option A is simpler, option B survives a cut. '.repeat(12)}`;

const ECHO = `echo ${MARK.toolEcho}`;
const DESCRIBED = { command: ECHO, description: 'Print the harness marker' };
/**
 * Each client's shell tool and the arguments it takes; the reply calls whichever the request
 * declares. Codex's has changed names and argument shapes between releases
 * (codex-rs/core/src/tools/spec.rs).
 */
const SHELL_TOOLS = {
  Bash: DESCRIBED, // Claude Code
  exec_command: { cmd: ECHO }, // codex
  shell_command: { command: ECHO }, // codex
  shell: { command: ['bash', '-lc', ECHO] }, // codex, older
  run_shell_command: DESCRIBED, // Qwen Code
  bash: DESCRIBED, // opencode, pi
};

/** The tool names a request declares, in its protocol's tool shape. */
function declaredToolNames(protocol, body) {
  return (body?.tools ?? []).map((tool) => (protocol === 'chat' ? tool?.function?.name : tool?.name));
}

/** A call of the shell tool the request declares, in the part shape its protocol's frames take. */
function shellCall(protocol, body) {
  const names = declaredToolNames(protocol, body);
  const name = Object.keys(SHELL_TOOLS).find((candidate) => names.includes(candidate));
  if (!name) return { text: `turnguard-harness: no shell tool among [${names.join(', ')}]` };
  const id = Date.now().toString(36);
  const args = SHELL_TOOLS[name];
  if (protocol === 'messages') return { tool: { id: `toolu_01${id}TG`, name, input: args } };
  if (protocol === 'chat') return { tool: { id: `call_${id}`, name, arguments: JSON.stringify(args) } };
  return { tool: { call_id: `call_${id}`, name, arguments: JSON.stringify(args) } };
}

/** Segment 1 of a cut turn: thinking (or a reasoning item) opened and never closed, then EOF. */
const cutInsideThinking = (protocol) => ({ parts: [protocol === 'messages' ? { thinking: THOUGHT, open: true } : { reasoning: THOUGHT, open: true }], cut: true });

const SCENARIOS = {
  plain: () => ({ parts: [{ text: MARK.plain }] }),
  tool: (protocol, body) => {
    const answered = { messages: hasToolResult, responses: hasFunctionOutput, chat: hasToolMessage }[protocol](body, MARK.toolEcho);
    if (answered) return { parts: [{ text: MARK.toolDone }] };
    const call = shellCall(protocol, body);
    return call.tool && protocol === 'messages' ? { parts: [call], stopReason: 'tool_use' } : { parts: [call] };
  },
  'cut-thinking': (protocol, _body, isRecovery) => (isRecovery ? { parts: [{ text: MARK.recovered }] } : cutInsideThinking(protocol)),
  'failed-recovery': (protocol, _body, isRecovery) => (isRecovery ? { parts: [{ text: MARK.partial, open: true }], cut: true } : cutInsideThinking(protocol)),
  // R11.2: the primary answers 503 every time; the configured fallback answers.
  'fallback-503': (_protocol, body) => (body?.model === FALLBACK_MODEL ? { parts: [{ text: MARK.fallback }] } : { status: 503 }),
  // R11.1: the client's model and the first fallback are down; the chain's Messages entry answers.
  'fallback-other-family': (_protocol, body) => (body?.model === CONTINUER_MODEL ? { parts: [{ text: MARK.otherFamily }] } : { status: 503 }),
  // R11.6: the answer is cut mid-text; the continuation request (its prefill the first half) gets the rest.
  'cut-continued': (_protocol, body) => (isContinuation(body) ? { parts: [{ text: MARK.continuedRest }] } : { parts: [{ text: MARK.continuedFirst, open: true }], cut: true }),
};

/**
 * Control for --direct runs only: the stream a correct gateway would splice after a
 * cut inside thinking (R8.7) — segment 1's thinking closed (unsigned: it never got
 * its signature), then the recovery's answer as the next block / item, one terminal
 * frame. It shows the pass condition of cut-thinking is reachable by these clients.
 */
const SPLICED_REFERENCE = {
  'spliced-reference': (protocol) => ({
    parts: [protocol === 'messages' ? { thinking: THOUGHT, unsigned: true } : { reasoning: THOUGHT }, { text: MARK.recovered }],
  }),
};
Object.assign(SCENARIOS, SPLICED_REFERENCE);

/** Scenarios run through the gateway; --direct adds the spliced reference. */
export const SCENARIO_NAMES = Object.keys(SCENARIOS).filter((name) => !(name in SPLICED_REFERENCE));
export const DIRECT_SCENARIO_NAMES = Object.keys(SCENARIOS);

/** The reply script for one main request. */
export function replyFor(scenario, protocol, body, isRecovery) {
  const script = SCENARIOS[scenario];
  if (!script) throw new Error(`unknown scenario ${scenario}`);
  return script(protocol, body, isRecovery);
}

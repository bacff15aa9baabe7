// Pass/fail per scenario, judged only on what a person running the client saw
// (its merged stdout+stderr and exit code).
import { MARK } from './replies.mjs';

const has = (output, text) => output.includes(text.trim());

function inOrder(output, first, second) {
  const a = output.indexOf(first.trim());
  const b = output.indexOf(second.trim());
  return a >= 0 && b >= 0 && a < b;
}

const RULES = {
  'spliced-reference': (run, client) => RULES['cut-thinking'](run, client),
  plain: (run) => (run.exitCode === 0 && has(run.output, MARK.plain) ? null : 'expected exit 0 and the plain answer'),
  // The final text is only sent after a tool result holding the echo's output came back.
  tool: (run) => (run.exitCode === 0 && has(run.output, MARK.toolDone) ? null : 'expected exit 0 and the answer sent after the tool result'),
  'cut-thinking': (run, client) => {
    if (run.exitCode !== 0 || !has(run.output, MARK.recovered)) return 'expected exit 0 and the recovered answer';
    if (client === 'codex' && !inOrder(run.output, 'turnguard-thought', MARK.recovered)) return 'expected the reasoning printed before the answer';
    return null;
  },
  'fallback-503': (run) => (run.exitCode === 0 && has(run.output, MARK.fallback) ? null : 'expected exit 0 and the fallback\'s answer'),
  'fallback-other-family': (run) => (run.exitCode === 0 && has(run.output, MARK.otherFamily) ? null : 'expected exit 0 and the Messages entry\'s answer'),
  // One whole answer: both halves printed as one sentence, and never the first half on its own
  // (codex prints its final message twice, in the transcript and as the result; each must be whole).
  'cut-continued': (run) => {
    const whole = `${MARK.continuedFirst}${MARK.continuedRest}`;
    if (run.exitCode !== 0 || !has(run.output, whole)) return 'expected exit 0 and the whole answer, its two halves joined';
    const count = (text) => run.output.split(text).length - 1;
    if (count(MARK.continuedFirst.trim()) !== count(whole)) return 'expected every first half followed by the rest';
    return null;
  },
  'failed-recovery': (run) => {
    if (run.exitCode === 0) return 'expected a non-zero exit';
    if (!/error|fail|cut|interrupt|disconnect/i.test(run.output)) return 'expected a visible error message';
    return null;
  },
};

/** null when the scenario passed, else why it failed. */
export function judge(scenario, client, run) {
  if (run.timedOut) return `no exit within ${run.timeoutSeconds} s`;
  return RULES[scenario](run, client);
}

/**
 * R11's fail-over scenarios also promise what reached the upstream through the gateway: the
 * budget's three tries of the primary, then one fallback; three tries of each of the first two
 * entries, then the third; one continuation, no fallback.
 * null when the requests match, else what differed.
 */
const REQUESTS = {
  'fallback-503': { main: 3, fallback: 1, continuation: 0 },
  // Three tries of the client's model, three of the first fallback, one of the Messages entry.
  'fallback-other-family': { main: 3, fallback: 4, continuation: 0 },
  'cut-continued': { main: 1, fallback: 0, continuation: 1 },
};
export function judgeRequests(scenario, upstreamShapes) {
  const expected = REQUESTS[scenario];
  if (expected === undefined) return null;
  const seen = Object.fromEntries(Object.keys(expected).map((role) => [role, upstreamShapes.filter((shape) => shape.role === role).length]));
  const differs = Object.keys(expected).filter((role) => seen[role] !== expected[role]);
  return differs.length === 0 ? null : `expected the upstream to see ${differs.map((role) => `${expected[role]} ${role}`).join(', ')}; it saw ${differs.map((role) => `${seen[role]} ${role}`).join(', ')}`;
}

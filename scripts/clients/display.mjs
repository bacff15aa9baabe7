// Turns a client's merged output into one readable report line: codex's start-up
// banner (version, workdir, model, provider, sandbox… between two "--------" rules)
// and its stdin notice are the same every run, so they are left out.
const NOISE = [/^Reading additional input from stdin\.\.\.$/];
/** Terminal colour and cursor codes (opencode colours its output even into a pipe). */
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function dropCodexBanner(lines) {
  const start = lines.findIndex((line) => /^OpenAI Codex v/.test(line));
  if (start < 0) return lines;
  const rules = lines.map((line, index) => (line === '--------' && index > start ? index : -1)).filter((index) => index >= 0);
  const end = rules[1] ?? rules[0];
  return end === undefined ? lines : [...lines.slice(0, start), ...lines.slice(end + 1)];
}

/** What a person saw, on one line, noise dropped, long outputs cut in the middle. */
export function whatPersonSaw(output, max = 700) {
  const lines = dropCodexBanner(output.replace(ANSI, '').split('\n').map((line) => line.trimEnd())).filter((line) => line.trim() && !NOISE.some((noise) => noise.test(line.trim())));
  const flat = lines.join(' ⏎ ');
  if (flat.length <= max) return flat;
  const half = Math.floor(max / 2);
  return `${flat.slice(0, half)} …[${flat.length - max} chars]… ${flat.slice(-half)}`;
}

/**
 * Deterministic, content-free filler and delta splitting. Real streams send
 * roughly one token per delta ("Holiday", " Day", "**" in vercel/ai
 * `openai-text.chunks.txt`); Anthropic groups a few words per delta
 * (" I need to divide that" in `anthropic-clear-thinking.1.chunks.txt`).
 */

const FILLER_SENTENCES = [
  'Let me work through this step by step.',
  ' First I check what the question asks for.',
  ' Then I compare the options one at a time.',
  ' Each case needs a short calculation.',
  ' The numbers line up with the earlier estimate.',
  ' So the remaining part follows from that.',
];

/** Exactly `length` characters of neutral prose (no user content, safe to log). */
export function makeFillerText(length: number): string {
  let text = '';
  let index = 0;
  while (text.length < length) {
    text += FILLER_SENTENCES[index % FILLER_SENTENCES.length];
    index += 1;
  }
  return text.slice(0, length);
}

/** Splits text into deltas of at most `wordsPerDelta` words, keeping every character. */
export function splitIntoDeltas(text: string, wordsPerDelta: number): string[] {
  // A word is its leading whitespace plus the following run of non-space characters.
  const words = text.match(/\s*\S+|\s+$/g) ?? [];
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerDelta) {
    deltas.push(words.slice(i, i + wordsPerDelta).join(''));
  }
  return deltas;
}

/**
 * Splits tool-call arguments into fragments the way real streams do: JSON
 * punctuation and string contents arrive as separate small fragments
 * (`{"`, `value`, `":"`, … in vercel/ai "should stream tool deltas").
 */
export function splitJsonFragments(json: string): string[] {
  const tokens = json.match(/[{}[\]:,"]+|[^{}[\]:,"]{1,12}/g) ?? [];
  return tokens;
}

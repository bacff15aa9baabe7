/**
 * Objects held for the life of the process so that V8 keeps their hidden
 * classes across full GCs (issue 19, decision 0282).
 *
 * A plain object literal's hidden class lives only as long as some object
 * has it. Between two turns (or two streams) every event, open block and
 * per-stream template is garbage; the full GCs an idle host runs then free
 * their hidden classes, and every optimised function that checked for them
 * is thrown away ("weak objects" / "wrong map" in `--trace-deopt`), to be
 * re-optimised part-way through the next turn. One idle object of the same
 * shape (same keys, same order) keeps each class alive; class instances use
 * a static `shapeAnchor` instead (decision 0202).
 */
const held: object[] = [];

/** Every sample held so far (tests check real objects share a sample's hidden class). */
export function heldShapes(): readonly object[] {
  return held;
}

/** Holds `samples` for the life of the process; returns how many objects are held in all. */
export function holdShapes(samples: readonly object[]): number {
  held.push(...samples);
  return held.length;
}

/**
 * The neutral events every decoder emits, one sample per key order, values
 * of the kinds the decoders put there (strings, numbers, objects), so the
 * samples' fields do not generalise the real events' fields.
 */
export const NEUTRAL_EVENT_SHAPES: readonly object[] = [
  { type: 'text-delta', id: '', delta: '' },
  { type: 'text-start', id: '' },
  { type: 'reasoning-end', id: '', signature: '' },
  { type: 'reasoning-end', id: '', encrypted: '' },
  { type: 'usage', usage: {} },
  { type: 'finish', finishReason: 'stop' },
  { type: 'response-metadata', responseId: '', model: '' },
  { type: 'response-metadata', responseId: '', model: '', createdAt: 0 },
  { type: 'stream-end', terminalFrameSeen: true },
  { type: 'stream-end', terminalFrameSeen: true, toolCallSeen: true },
];

/** How many recovered Responses ids the gateway remembers (oldest forgotten first). */
const MAX_CHAINS = 2048;

/**
 * Responses `previous_response_id` after a recovery (decision 0211). The
 * client saw one logical response with segment 1's id (R8.7: consistent
 * ids), but the upstream response that holds the recovered answer is the
 * recovery segment's. A later request that chains from the id the client saw
 * is sent upstream chaining from the recovery response instead, so the model
 * continues from the answer the client got, not from the cut one. In memory
 * only: ids, no content (R4.10); a restarted gateway forwards ids unchanged.
 */
export class ResponseIdChains {
  readonly #recovered = new Map<string, string>();

  /** Records that `shownId` (what the client saw) was recovered as `recoveredId`. */
  remember(shownId: string, recoveredId: string): void {
    if (shownId === recoveredId) return;
    this.#recovered.delete(shownId);
    this.#recovered.set(shownId, recoveredId);
    if (this.#recovered.size > MAX_CHAINS) this.#recovered.delete(this.#recovered.keys().next().value!);
  }

  /** The id to send upstream for a `previous_response_id` the client sent. */
  resolve(previousId: string): string {
    return this.#recovered.get(previousId) ?? previousId;
  }
}

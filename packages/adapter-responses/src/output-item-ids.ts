import { readNumber, readString, type JsonObject } from './native-json.js';

/**
 * The stable id of the output item a Responses stream event is about. Items
 * are keyed by `output_index` (every item event carries it: openai-node's
 * ResponseStreamEvent types), and the first id seen at an index names the item
 * for the rest of the stream: an OpenAI-compatible service that rotates
 * `item_id` on every event, or omits it, would otherwise get its `.done` text
 * matched to no deltas and emitted twice (R7.2). Without an
 * `output_index` the wire id is all there is. One instance per stream.
 */
export class OutputItemIds {
  readonly #byOutputIndex = new Map<number, string>();

  /** The item's stable id; `wireItemId` is the event's `item_id` (or the item's `id`). */
  itemId(event: JsonObject, wireItemId: unknown): string | undefined {
    const wireId = readString(wireItemId);
    const outputIndex = readNumber(event.output_index);
    if (outputIndex === undefined) return wireId;
    const known = this.#byOutputIndex.get(outputIndex);
    if (known !== undefined) return known;
    const itemId = wireId ?? `output-${outputIndex}`;
    this.#byOutputIndex.set(outputIndex, itemId);
    return itemId;
  }

  /** Text block id: the item's stable id, suffixed by the content index past the first part. */
  textId(event: JsonObject): string | undefined {
    const itemId = this.itemId(event, event.item_id);
    if (itemId === undefined) return undefined;
    const contentIndex = readNumber(event.content_index) ?? 0;
    return contentIndex === 0 ? itemId : `${itemId}:${contentIndex}`;
  }
}

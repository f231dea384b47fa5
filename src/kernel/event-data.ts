/** The bound on a webhook event's recorded data, which every delivery body is built from. */

/**
 * The longest event data recorded, as JSON text: an order of 1,000 tickets with their codes is about 1 MB (more with
 * long attendee answers). Longer data is recorded as `{ truncated: true, length, … }` with its short top-level strings
 * and each top-level object's `id` (the receiver reads the rest through the API), so a delivery's body stays within
 * `maxDeliveryBody`.
 */
export const MAX_EVENT_DATA = 4_000_000;

/** The longest body a delivery sends: the recorded data, its envelope (type, timestamp) and an absolute permalink. */
export const maxDeliveryBody = (publicUrlLength: number): number => MAX_EVENT_DATA + 200 + publicUrlLength;

/** `data` as the JSON text recorded: itself, or its truncated form past MAX_EVENT_DATA. */
export function recordedData(data: Record<string, unknown>): string {
  const json = JSON.stringify(data);
  if (json.length <= MAX_EVENT_DATA) return json;
  const kept: Record<string, unknown> = { truncated: true, length: json.length };
  for (const [k, v] of Object.entries(data)) {
    if (typeof v === 'string' && v.length <= 100) kept[k] = v;
    const id = typeof v === 'object' && v !== null ? (v as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && id.length <= 100) kept[k] = { id };
  }
  return JSON.stringify(kept);
}

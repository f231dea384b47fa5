/** Date fields (`<input type="date">`, `YYYY-MM-DD`) as the RFC 3339 bounds the API's range filters take, in UTC. */

/** The start of `day` in UTC, RFC 3339; undefined when the field is empty or not a day. */
export function dayStart(day: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00.000Z` : undefined;
}

/** The start of the day after `day`: an exclusive end that includes `day`. */
export function dayAfter(day: string): string | undefined {
  const start = dayStart(day);
  return start ? new Date(Date.parse(start) + 86_400_000).toISOString() : undefined;
}

/** A caught error's safe summary for a log line (re-exported by errors.ts, where importers find it). */

/**
 * An error's class and (truncated) message for a log line: never its stack, and no SQL parameters
 * (driver errors carry the server's message only). Every log site that records a caught error uses this.
 */
export function describeError(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message.slice(0, 300) };
  return { name: typeof err, message: String(err).slice(0, 300) };
}

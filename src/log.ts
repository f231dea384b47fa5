/** The logger: JSON lines on stderr (stdout stays free for MCP stdio), secrets redacted. */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './kernel/config.ts';

/** Secret fields (`src/kernel/secret-fields.ts`) are never logged; these paths also catch one logged by mistake. */
export function createLogger(
  level: Config['logLevel'],
  destination: DestinationStream = pino.destination({ fd: 2, sync: false }),
): Logger {
  return pino(
    {
      level,
      base: { service: 'tessera' },
      redact: {
        paths: [
          '*.authorization',
          '*.token',
          '*.apiKey',
          '*.password',
          '*.secret',
          'req.headers.authorization',
          '*.secretKey',
          '*.webhookSecret',
          '*.cvc',
          '*.cryptogram',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * Writes every line logged so far, in order, and then resolves: the last step before a process exits. The stderr
 * destination writes asynchronously; `flush` does not wait for a write in flight, and the synchronous flush at exit
 * could then put the last lines before one still being written (a `stopped` line before `shutting down`), so the
 * destination is ended and its `close` awaited. A destination without `end` (a test's) is flushed.
 */
export function endLog(log: Logger): Promise<void> {
  const stream = Reflect.get(log, pino.symbols.streamSym) as
    { end?: () => void; once?: (event: string, listener: () => void) => void; destroyed?: boolean } | undefined;
  if (!stream?.end || !stream.once || stream.destroyed) return new Promise((done) => log.flush(() => done()));
  return new Promise((done) => {
    stream.once!('close', done);
    stream.end!();
  });
}

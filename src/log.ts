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

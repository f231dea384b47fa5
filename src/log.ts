/** The logger: JSON lines on stderr (stdout stays free for MCP stdio), secrets redacted. */
import { pino, type Logger } from 'pino';
import type { Config } from './kernel/config.ts';

export function createLogger(level: Config['logLevel']): Logger {
  return pino(
    {
      level,
      base: { service: 'tessera' },
      redact: {
        paths: ['*.authorization', '*.token', '*.apiKey', '*.password', '*.secret', 'req.headers.authorization'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}

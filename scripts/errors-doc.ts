/** Writes docs/errors.md from the closed error table (run `npm run docs:errors` after adding a code). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../src/kernel/error-codes.ts';

export function errorsMarkdown(): string {
  const rows = Object.entries(ERRORS)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.message} |`);
  return [
    '# Errors',
    '',
    'Every failure on every surface is one of these codes. REST answers the status with the body',
    '`{ "code", "message", "details"? }` (429 and `idempotency_in_flight` add `retryAfter` and a `Retry-After`',
    'header). MCP returns an error result whose first text block is `<code>: <message>` and whose second is the',
    'JSON body. A2A ends the task (401 → auth-required; 400/413/415 → input-required; 5xx → failed; other 4xx →',
    "rejected; a tool's declared `authRequiredErrors`, e.g. purchase_initiate's mandate refusals → auth-required)",
    'with a status message carrying the same body as a data part.',
    '',
    'This file is generated from `src/kernel/error-codes.ts` by `npm run docs:errors`; a test keeps them equal.',
    '',
    '| code | status | default message |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.main) {
  writeFileSync(join(import.meta.dirname, '..', 'docs', 'errors.md'), errorsMarkdown());
}

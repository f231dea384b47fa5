/** request_console_sign_in_link: e-mail a console member a single-use sign-in link. */
import { z } from 'zod';
import { requestConsoleSignInLink } from '../../domain/merchants/console-sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const requestConsoleSignInLinkTool = defineTool({
  name: 'request_console_sign_in_link',
  title: 'Ask for a console sign-in link',
  area: 'console',
  description:
    'Public. E-mails a single-use link (15 minutes) that signs a merchant console member in. The answer is the same ' +
    'whether or not the address belongs to a member, and only members get mail: say so to the person. At most 5 ' +
    'links per address per 15 minutes (rate_limited with retryAfter).',
  input: z.strictObject({
    email: z.email().max(254).describe('The console user’s email address; the sign-in link is sent there.'),
  }),
  output: z.object({
    sent: z.literal(true),
    expiresAt: z.string(),
    delivery: z
      .enum(['smtp', 'outbox'])
      .describe(
        'How mail leaves this server, the same for every address: smtp, or outbox (no SMTP server is set: mail is ' +
          'kept in the development outbox, /dev/mail on a loopback server, or `npx tessera mail`).',
      ),
  }),
  errors: ['rate_limited'],
  auth: { public: true, listed: ['anonymous'] }, // a signed-in caller has no use for it
  http: { method: 'POST', path: '/v1/console/sign-in', status: 202 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  transactional: false,
  async handler({ email }, ctx) {
    return requestConsoleSignInLink(ctx, email);
  },
});

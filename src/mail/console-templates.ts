/** E-mails to merchant people (console sign-in links and team invitations); the console is in English. */
import type { MailText } from './templates.ts';

/** The console sign-in e-mail. */
export function consoleSignInMail(link: string, minutes: number): MailText {
  return {
    subject: 'Your Tessera console sign-in link',
    text: `Open this link to sign in to the Tessera merchant console:\n\n${link}\n\nIt works once and expires in ${minutes} minutes. If you did not ask for it, ignore this e-mail.`,
  };
}

/** The team invitation e-mail. */
export function invitationMail(link: string, organization: string, role: string, days: number): MailText {
  return {
    subject: `You are invited to ${organization} on Tessera`,
    text:
      `You are invited to join ${organization} in the Tessera merchant console as ${role === 'owner' ? 'an owner' : 'an integrator'}.\n\n` +
      `Open this link to accept and sign in:\n\n${link}\n\nIt works once and expires in ${days} days. If you did not expect it, ignore this e-mail.`,
  };
}

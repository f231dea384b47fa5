/**
 * The buyer e-mails (sign-in link, 6-digit code). Their words live in the i18next catalogs beside the pages'
 * (`src/i18n/locales/<lang>.json`, under `mail`); this module only picks the keys and fills in the values.
 */
import type { Translate } from '../i18n/i18n.ts';

export interface MailText {
  subject: string;
  text: string;
}

/** The sign-in e-mail, in the language of `t`. */
export function signInMail(t: Translate, link: string, minutes: number, shop: string | null): MailText {
  const text = shop ? t('mail.signIn.bodyForShop', { link, minutes, shop }) : t('mail.signIn.body', { link, minutes });
  return { subject: t('mail.signIn.subject'), text };
}

/** The verification-code e-mail for `purpose` (one of the code purposes, e.g. `save_card`), in the language of `t`. */
export function codeMail(t: Translate, code: string, purpose: string, minutes: number): MailText {
  return { subject: t('mail.code.subject'), text: t('mail.code.body', { code, minutes, action: t(`mail.code.actions.${purpose}`) }) };
}

/**
 * The buyer e-mails (sign-in link, 6-digit code, order confirmation with QR codes, refund). Their words live in the
 * i18next catalogs beside the pages' (`src/i18n/locales/<lang>.json`, under `mail`); this module only picks the keys
 * and fills in the values.
 */
import type { Translate } from '../i18n/i18n.ts';
import { formatEventTime } from '../kernel/event-time.ts';
import type { MailMessage } from './mailer.ts';

export interface MailText {
  subject: string;
  text: string;
}

/** The sign-in e-mail, in the language of `t`. */
export function signInMail(t: Translate, link: string, minutes: number, shop: string | null): MailText {
  const text = shop ? t('mail.signIn.bodyForShop', { link, minutes, shop }) : t('mail.signIn.body', { link, minutes });
  return { subject: t('mail.signIn.subject'), text };
}

/**
 * The verification-code e-mail for `purpose` (one of the code purposes, e.g. `save_card`), in the language of `t`;
 * `details` fills the action's variables where it names what the code authorizes (`authorize_agent`).
 */
export function codeMail(
  t: Translate,
  code: string,
  purpose: string,
  minutes: number,
  details: Record<string, string> = {},
): MailText {
  return {
    subject: t('mail.code.subject'),
    text: t('mail.code.body', { code, minutes, action: t(`mail.code.actions.${purpose}`, details) }),
  };
}

/** What the order e-mails say, in the buyer's terms (amounts in minor units, formatted for the language here). */
export interface OrderMailData {
  lang: string;
  merchant: string;
  event: string;
  eventStartsAt: Date;
  /** The event's IANA time zone: its time is shown there, the zone named (UTC when absent). */
  eventTimeZone?: string | undefined;
  orderId: string;
  tier: string;
  quantity: number;
  unitPriceMinor: number;
  feesMinor: number;
  totalMinor: number;
  currency: string;
  /** Each ticket with the code its QR code carries (the signed code, else the opaque one); its tier when not `tier`. */
  tickets: { id: string; code: string; tier?: string | undefined; attendee?: string | undefined }[];
  /** A multi-line purchase: a receipt line per tier (`tier`, `quantity` and `unitPriceMinor` are then the first's). */
  lines?: { tier: string; quantity: number; unitPriceMinor: number }[] | undefined;
}

export interface RefundMailData extends Omit<
  OrderMailData,
  'tickets' | 'unitPriceMinor' | 'feesMinor' | 'totalMinor' | 'quantity' | 'tier' | 'lines'
> {
  amountMinor: number;
  reason: string;
  ticketIds: string[];
}

/** Formats minor units as money in `lang` (the currency's own number of decimals). */
export function formatMoney(lang: string, minor: number, currency: string): string {
  const f = new Intl.NumberFormat(lang, { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The order confirmation: the tickets (each with its QR code inline) and a receipt. */
export async function orderConfirmationMail(
  t: Translate,
  d: OrderMailData,
): Promise<MailText & Pick<MailMessage, 'html' | 'inline'>> {
  const money = (minor: number) => formatMoney(d.lang, minor, d.currency);
  const date = formatEventTime(d.lang, d.eventStartsAt, d.eventTimeZone);
  const intro = t('mail.order.intro', { merchant: d.merchant, event: d.event, date });
  // Each ticket's line, with its attendee's name when the purchase gave one.
  const ticketLines = d.tickets.map(
    (x, i) =>
      t('mail.order.ticket', { n: i + 1, tier: x.tier ?? d.tier, ticketId: x.id }) +
      (x.attendee ? ` · ${t('mail.order.attendee', { name: x.attendee })}` : ''),
  );
  const lines = d.lines ?? [{ tier: d.tier, quantity: d.quantity, unitPriceMinor: d.unitPriceMinor }];
  const receipt = [
    t('mail.order.orderNumber', { orderId: d.orderId }),
    t('mail.order.merchant', { merchant: d.merchant }),
    ...lines.map((l) =>
      t('mail.order.tickets', { quantity: l.quantity, tier: l.tier, unitPrice: money(l.unitPriceMinor) }),
    ),
    t('mail.order.subtotal', { amount: money(lines.reduce((n, l) => n + l.unitPriceMinor * l.quantity, 0)) }),
    t('mail.order.fees', { amount: money(d.feesMinor) }),
    t('mail.order.total', { amount: money(d.totalMinor), currency: d.currency }),
  ];
  const text = [
    intro,
    '',
    ...ticketLines.map((l, i) => `${l}\n${d.tickets[i]!.code}`),
    '',
    t('mail.order.receipt'),
    ...receipt,
  ].join('\n');
  const { default: QRCode } = await import('qrcode'); // loaded on the first order mail, not before ready
  const inline = await Promise.all(
    d.tickets.map(async (x) => ({
      cid: `qr-${x.id}@tessera`,
      filename: `${x.id}.png`,
      contentType: 'image/png',
      content: await QRCode.toBuffer(x.code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 }),
    })),
  );
  const html = [
    `<p>${escapeHtml(intro)}</p>`,
    ...ticketLines.map(
      (l, i) =>
        `<h3>${escapeHtml(l)}</h3><p><img src="cid:${inline[i]!.cid}" alt="${escapeHtml(l)}" width="240" height="240"></p>`,
    ),
    `<h3>${escapeHtml(t('mail.order.receipt'))}</h3>`,
    `<p>${receipt.map(escapeHtml).join('<br>')}</p>`,
  ].join('\n');
  return { subject: t('mail.order.subject', { event: d.event }), text, html, inline };
}

/** The refund e-mail: how much, why, and which tickets no longer admit. */
export function refundMail(t: Translate, d: RefundMailData): MailText {
  const text = t('mail.refund.body', {
    merchant: d.merchant,
    amount: formatMoney(d.lang, d.amountMinor, d.currency),
    orderId: d.orderId,
    event: d.event,
    reason: d.reason,
    tickets: d.ticketIds.join(', '),
  });
  return { subject: t('mail.refund.subject', { orderId: d.orderId }), text };
}

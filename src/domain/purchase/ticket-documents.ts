/**
 * Tickets people can carry (issue #37, item 5): an order's tickets as a PDF, each ticket as an Apple Wallet pass and
 * a Google Wallet save link, all rendered on request (never on quote, reserve or confirm). A caller the orchestrator
 * authorized for the order gets download links (`ticketDownloads`); a link is a sealed token (AES-256-GCM: order,
 * ticket, language, expiry) that `GET /v1/ticket-files/{token}` redeems without a credential, like export links, but
 * may be used again until it expires. A ticket refunded since answers 404; so does an order with no valid ticket.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/principal.ts';
import { resolveLang, type Lang } from '../../i18n/langs.ts';
import { iso } from '../../kernel/wire.ts';
import { formatEventTime } from '../../kernel/event-time.ts';
import { sql } from '../../storage/database.ts';
import { Order } from '../../storage/entities/purchase.ts';
import { buildApplePass, PKPASS_TYPE } from '../../documents/apple-pass.ts';
import { googleWalletSaveUrl } from '../../documents/google-wallet.ts';
import { renderTicketPdf, ticketPdfFilename } from '../../documents/ticket-pdf.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import type { Services } from '../context.ts';
import { openWalletSettings, type OpenedWalletSettings } from '../merchants/wallet-pass-settings.ts';
import { requireAccess } from './purchase-access.ts';

/** How long a link from `ticketDownloads` works. */
export const TICKET_LINK_TTL_MS = 60 * 60_000;
/** A link in the order e-mail works until this long after the event starts (and at least a day). */
export const MAIL_LINK_AFTER_EVENT_MS = 30 * 86_400_000;
/** Where the links point. */
export const TICKET_FILE_PATH = '/v1/ticket-files/';

type Run = <R>(text: string, params: unknown[]) => Promise<R[]>;
type Deps = Pick<Services, 'db' | 'catalogs' | 'payments' | 'publicUrl'>;

/** An order's facts and its valid tickets, in the order they were issued. */
export interface OrderTickets {
  orderId: string;
  shopId: string;
  merchant: string;
  event: string;
  eventStartsAt: Date;
  eventTimeZone: string;
  venue: string | null;
  buyerLang: string | null;
  tickets: { id: string; tier: string; attendeeName: string | null; code: string }[];
}

/** Reads an order's valid tickets, with the attendee's name when the purchase gave one (docs/attendees.md). */
export async function loadOrderTickets(run: Run, orderId: string): Promise<OrderTickets | undefined> {
  const [o] = await run<{
    shop_id: string;
    merchant: string;
    event: string;
    starts_at: Date;
    time_zone: string;
    venue: string | null;
    buyer_lang: string | null;
  }>(
    `select o.shop_id, s.name as merchant, e.title as event, e.starts_at, e.time_zone, e.venue,
            coalesce((select p.mail_lang from payments p where p.id = o.payment_id), b.lang) as buyer_lang
       from orders o join shops s on s.id = o.shop_id join events e on e.id = o.event_id
       left join buyers b on b.id = o.buyer_id
      where o.id = ?`,
    [orderId],
  );
  if (!o) return undefined;
  const tickets = await run<{ id: string; tier: string; attendee_name: string | null; code: string }>(
    `select tk.id, t.name as tier, tk.attendee_name,
            coalesce(tk.signed_code, tk.code) as code
       from tickets tk join tiers t on t.id = tk.tier_id
      where tk.order_id = ? and tk.state = 'valid' order by tk.id`,
    [orderId],
  );
  return {
    orderId,
    shopId: o.shop_id,
    merchant: o.merchant,
    event: o.event,
    eventStartsAt: new Date(o.starts_at),
    eventTimeZone: o.time_zone,
    venue: o.venue,
    buyerLang: o.buyer_lang,
    tickets: tickets.map((x) => ({ id: x.id, tier: x.tier, attendeeName: x.attendee_name, code: x.code })),
  };
}

interface LinkClaims {
  /** What the link gives: the order's PDF or one ticket's Apple Wallet pass. */
  k: 'pdf' | 'pkpass';
  o: string;
  t?: string;
  l: Lang;
  /** Expiry, Unix milliseconds. */
  e: number;
}

const LINK_BINDING = 'tessera/ticket-file-link';

function link(deps: Deps, claims: LinkClaims): string {
  const token = deps.payments.credentials.seal(JSON.stringify(claims), LINK_BINDING);
  return `${deps.publicUrl().replace(/\/$/, '')}${TICKET_FILE_PATH}${token}`;
}

/** The links of an order's tickets in `lang`, valid until `expires`; wallet links only for the wallets switched on. */
async function linksOf(
  deps: Deps,
  f: OrderTickets,
  lang: Lang,
  expires: Date,
  now: Date,
  wallets: OpenedWalletSettings,
) {
  const e = expires.getTime();
  const origin = new URL(deps.publicUrl()).origin;
  return {
    pdf: f.tickets.length
      ? { url: link(deps, { k: 'pdf', o: f.orderId, l: lang, e }), filename: ticketPdfFilename(f.orderId) }
      : undefined,
    tickets: await Promise.all(
      f.tickets.map(async (x) => ({
        ticketId: x.id,
        ...(wallets.apple ? { appleWalletUrl: link(deps, { k: 'pkpass', o: f.orderId, t: x.id, l: lang, e }) } : {}),
        ...(wallets.google
          ? {
              googleWalletUrl: await googleWalletSaveUrl(
                wallets.google,
                [{ ...x, event: f.event, venue: f.venue, eventStartsAt: f.eventStartsAt }],
                origin,
                now,
              ),
            }
          : {}),
      })),
    ),
  };
}

/** `get_ticket_downloads`: the download links of an order the caller may see (another's answers 404). */
export async function ticketDownloads(
  em: EntityManager,
  principal: Principal,
  services: Services,
  input: { id: string; lang?: Lang | undefined },
  now: Date,
) {
  requireAccess(principal, await em.findOne(Order, { id: input.id }), 'order', input.id);
  const f = (await loadOrderTickets((text, params) => sql(em, text, params), input.id))!;
  const lang = input.lang ?? resolveLang([f.buyerLang]);
  const wallets = await openWalletSettings(em, services.payments.credentials, f.shopId);
  const expires = new Date(now.getTime() + TICKET_LINK_TTL_MS);
  const links = await linksOf(services, f, lang, expires, now, wallets);
  return {
    orderId: f.orderId,
    lang,
    expiresAt: iso(expires),
    ...(links.pdf ? { pdf: links.pdf } : {}),
    appleWallet: Boolean(wallets.apple),
    googleWallet: Boolean(wallets.google),
    tickets: links.tickets,
  };
}

/** A redeemed link: the file to send. */
export interface TicketFile {
  filename: string;
  contentType: string;
  body: Buffer;
}

/** Opens a link's token and renders its file; undefined (answered 404) when forged, expired or no longer valid. */
export async function redeemTicketFile(deps: Deps, token: string, now: Date): Promise<TicketFile | undefined> {
  const opened = deps.payments.credentials.open(token, LINK_BINDING);
  if (!opened) return undefined;
  const c = JSON.parse(opened) as LinkClaims;
  if (c.e <= now.getTime()) return undefined;
  const f = await loadOrderTickets((text, params) => deps.db.execute(text, params), c.o);
  if (!f?.tickets.length) return undefined;
  const t = deps.catalogs.mailTranslator(c.l);
  if (c.k === 'pdf') {
    const body = await renderTicketPdf(t, { ...f, lang: c.l, createdAt: now });
    return { filename: ticketPdfFilename(f.orderId), contentType: 'application/pdf', body };
  }
  const ticket = f.tickets.find((x) => x.id === c.t);
  const apple = (await openWalletSettings(deps.db, deps.payments.credentials, f.shopId)).apple;
  if (!ticket || !apple) return undefined;
  const labels = {
    event: t('mail.ticketPdf.event'),
    when: t('mail.ticketPdf.when'),
    venue: t('mail.ticketPdf.venue'),
    tier: t('mail.ticketPdf.tier'),
    attendee: t('mail.ticketPdf.attendee'),
    ticketId: t('mail.ticketPdf.ticketId'),
  };
  const when = formatEventTime(c.l, f.eventStartsAt, f.eventTimeZone);
  const body = buildApplePass(apple, {
    ...ticket,
    event: f.event,
    when,
    eventStartsAt: f.eventStartsAt,
    venue: f.venue,
    orderId: f.orderId,
    labels,
  });
  return { filename: `${ticket.id}.pkpass`, contentType: PKPASS_TYPE, body };
}

/**
 * What the order e-mail carries besides its text: the tickets PDF as an attachment, and when the shop has wallet
 * passes on, a link per ticket (lines for the text, links for the HTML). Links last until a month after the event.
 */
export async function ticketMailDocuments(
  deps: Pick<Services, 'db' | 'catalogs'> & Partial<Pick<Services, 'payments' | 'publicUrl'>>,
  orderId: string,
  lang: Lang,
  now: Date,
) {
  const f = await loadOrderTickets((text, params) => deps.db.execute(text, params), orderId);
  if (!f?.tickets.length) return { attachments: [], text: [], html: [] };
  const t = deps.catalogs.mailTranslator(lang);
  const pdf = await renderTicketPdf(t, { ...f, lang, createdAt: now });
  const filename = ticketPdfFilename(orderId);
  const text = [t('mail.ticketFiles.pdfAttached', { filename })];
  const html: { href: string; label: string }[] = [];
  if (deps.payments && deps.publicUrl) {
    const full = { ...deps, payments: deps.payments, publicUrl: deps.publicUrl };
    const wallets = await openWalletSettings(deps.db, deps.payments.credentials, f.shopId);
    const expires = new Date(
      Math.max(f.eventStartsAt.getTime() + MAIL_LINK_AFTER_EVENT_MS, now.getTime() + 86_400_000),
    );
    const links = await linksOf(full, f, lang, expires, now, wallets);
    links.tickets.forEach((x, i) => {
      if (x.appleWalletUrl) {
        text.push(t('mail.ticketFiles.apple', { n: i + 1, url: x.appleWalletUrl }));
        html.push({ href: x.appleWalletUrl, label: t('mail.ticketFiles.appleLink', { n: i + 1 }) });
      }
      if (x.googleWalletUrl) {
        text.push(t('mail.ticketFiles.google', { n: i + 1, url: x.googleWalletUrl }));
        html.push({ href: x.googleWalletUrl, label: t('mail.ticketFiles.googleLink', { n: i + 1 }) });
      }
    });
  }
  return { attachments: [{ filename, contentType: 'application/pdf', content: pdf }], text, html };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The order confirmation `mail` with the tickets PDF attached and the wallet links added (see ticketMailDocuments). */
export async function withTicketDocuments<M extends MailMessage>(
  deps: Parameters<typeof ticketMailDocuments>[0],
  orderId: string,
  lang: Lang,
  mail: M,
  now: Date,
): Promise<M> {
  const d = await ticketMailDocuments(deps, orderId, lang, now);
  if (!d.attachments.length) return mail;
  const links = d.html.map((l) => `<p><a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a></p>`);
  return {
    ...mail,
    text: [mail.text, '', ...d.text].join('\n'),
    ...(mail.html ? { html: [mail.html, `<p>${escapeHtml(d.text[0]!)}</p>`, ...links].join('\n') } : {}),
    attachments: [...(mail.attachments ?? []), ...d.attachments],
  };
}

/**
 * Receipts, invoices and credit notes of completed orders (docs/console.md, "Tax and invoices"). Every completed order
 * has a receipt; a shop with invoicing on gives each order an invoice and each succeeded refund of an invoiced order a
 * credit note, numbered `<prefix>-<n>` from one gapless counter per shop. The numbers are allocated by the database in
 * the transaction that completes the order or the refund (migration 0036's triggers), so every path of the spine gets
 * them and a rolled-back completion leaves no gap. Documents are PDFs in the order's mail language, rendered on demand
 * from what the invoice row froze (seller details, tax breakdown) and the order; callers get short-lived links.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/principal.ts';
import { ToolError } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { iso } from '../../kernel/wire.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { invoicePdf, type InvoiceDocument } from '../../documents/invoice-pdf.ts';
import { sql, type Database } from '../../storage/database.ts';
import { randomToken } from '../../storage/ids.ts';
import { requireShop } from '../catalog/access.ts';
import { mayAccessPurchase } from './purchase-access.ts';
import { BUYER_COLUMNS, BUYER_JOIN } from './order-search.ts';
import { scaleTax, taxSettingsOf, type SellerDetails, type TaxBreakdown } from './tax.ts';

/** How long a document link works (any number of times). */
export const DOCUMENT_LINK_TTL_MS = 15 * 60_000;
export const DOCUMENT_KINDS = ['receipt', 'invoice', 'credit_note'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** An invoice or credit note as stored. */
interface InvoiceRow {
  id: string;
  shop_id: string;
  order_id: string;
  refund_id: string | null;
  kind: 'invoice' | 'credit_note';
  seq: string | number;
  number: string;
  seller: SellerDetails | null;
  tax: TaxBreakdown | null;
  created_at: Date;
  amount_minor: number;
  currency: string;
}

const INVOICE_COLUMNS = `i.id, i.shop_id, i.order_id, i.refund_id, i.kind, i.seq, i.number,
  i.seller->'seller' as seller, i.tax, i.created_at, coalesce(f.amount_minor, o.total_minor) as amount_minor,
  o.currency`;
const INVOICE_FROM = 'from invoices i join orders o on o.id = i.order_id left join refunds f on f.id = i.refund_id';
const INVOICE_SELECT = `${INVOICE_COLUMNS} ${INVOICE_FROM}`;

/** One document of an order, as callers list it. */
export interface DocumentView {
  kind: DocumentKind;
  invoiceId: string | null;
  number: string | null;
  orderId: string;
  refundId: string | null;
  totalMinor: number;
  currency: string;
  createdAt: string;
}

function invoiceView(r: InvoiceRow): DocumentView {
  return {
    kind: r.kind,
    invoiceId: r.id,
    number: r.number,
    orderId: r.order_id,
    refundId: r.refund_id,
    totalMinor: r.amount_minor,
    currency: r.currency,
    createdAt: iso(new Date(r.created_at)),
  };
}

/**
 * An order's documents with a download link each: its receipt, then its invoice and credit notes (when its shop
 * invoices). The merchant's organization and the buyer (or agent) who bought it may ask; anyone else gets `not_found`.
 */
export async function orderDocuments(
  em: EntityManager,
  principal: Principal,
  orderId: string,
  now: Date,
  publicUrl: string,
) {
  const [order] = await sql<{
    id: string;
    shop_id: string;
    organization_id: string;
    owner_key: string;
    buyer_id: string | null;
    total_minor: number;
    currency: string;
    created_at: Date;
  }>(
    em,
    `select id, shop_id, organization_id, owner_key, buyer_id, total_minor, currency, created_at
       from orders where id = ?`,
    [orderId],
  );
  const owned = order && {
    shopId: order.shop_id,
    organizationId: order.organization_id,
    ownerKey: order.owner_key,
    buyerId: order.buyer_id,
  };
  if (!order || !owned || !mayAccessPurchase(principal, owned)) {
    throw new ToolError('not_found', `No order ${orderId}.`, { id: orderId });
  }
  const invoices = await sql<InvoiceRow>(em, `select ${INVOICE_SELECT} where i.order_id = ? order by i.seq`, [orderId]);
  const receipt: DocumentView = {
    kind: 'receipt',
    invoiceId: null,
    number: null,
    orderId,
    refundId: null,
    totalMinor: order.total_minor,
    currency: order.currency,
    createdAt: iso(new Date(order.created_at)),
  };
  const expiresAt = new Date(now.getTime() + DOCUMENT_LINK_TTL_MS);
  const documents = [];
  for (const d of [receipt, ...invoices.map(invoiceView)]) {
    const token = `tdoc_${randomToken()}`;
    await sql(
      em,
      'insert into invoice_downloads (token_hash, order_id, invoice_id, expires_at, created_at) values (?, ?, ?, ?, ?)',
      [hashToken(token), orderId, d.invoiceId, expiresAt, now],
    );
    documents.push({
      ...d,
      downloadUrl: `${publicUrl.replace(/\/$/, '')}/v1/invoices/${token}`,
      expiresAt: iso(expiresAt),
    });
  }
  return { orderId, documents };
}

/** A shop's invoices and credit notes by number, 100 a page (`cursor`: the last number's sequence). */
export async function listInvoices(
  em: EntityManager,
  principal: Principal,
  input: { merchantId: string; cursor?: string | undefined; limit?: number | undefined },
) {
  const shop = await requireShop(em, principal, input.merchantId);
  const limit = input.limit ?? 100;
  const after = input.cursor && /^\d{1,15}$/.test(input.cursor) ? Number(input.cursor) : 0;
  const rows = await sql<InvoiceRow>(
    em,
    `select ${INVOICE_SELECT} where i.shop_id = ? and i.seq > ? order by i.seq limit ?`,
    [shop.id, after, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    invoices: page.map(invoiceView),
    ...(rows.length > limit ? { nextCursor: String(page[page.length - 1]!.seq) } : {}),
  };
}

/** A link's document as PDF (any number of times before it expires); undefined when unknown or expired. */
export async function redeemDocumentLink(
  db: Database,
  token: string,
  now: Date,
): Promise<{ filename: string; pdf: Buffer } | undefined> {
  const [link] = await db.execute<{ order_id: string; invoice_id: string | null }>(
    'select order_id, invoice_id from invoice_downloads where token_hash = ? and expires_at > ?',
    [hashToken(token), now],
  );
  if (!link) return undefined;
  return renderOrderDocument(db, link.order_id, link.invoice_id);
}

/** The order's invoice as an e-mail attachment, when it has one (its shop invoices); else undefined. */
export async function orderInvoiceAttachment(db: Database, orderId: string) {
  const [inv] = await db.execute<{ id: string }>("select id from invoices where order_id = ? and kind = 'invoice'", [
    orderId,
  ]);
  if (!inv) return undefined;
  const doc = await renderOrderDocument(db, orderId, inv.id);
  return { filename: doc.filename, contentType: 'application/pdf', content: doc.pdf };
}

interface OrderFacts {
  id: string;
  shop_name: string;
  tax_settings: unknown;
  buyer_email: string | null;
  lang: string | null;
  tier_id: string;
  quantity: number;
  unit_price_minor: number;
  fees_minor: number;
  total_minor: number;
  currency: string;
  lines: { tierId: string; quantity: number; unitPriceMinor: number; subtotalMinor?: number }[] | null;
  tax: TaxBreakdown | null;
  created_at: Date;
}

/** Renders an order's receipt (`invoiceId` null) or one of its invoices or credit notes. */
async function renderOrderDocument(db: Database, orderId: string, invoiceId: string | null) {
  const [f] = await db.execute<OrderFacts>(
    `select o.id, s.name as shop_name, s.tax_settings, ${BUYER_COLUMNS},
            coalesce((select p.mail_lang from payments p where p.id = o.payment_id), b.lang) as lang,
            r.tier_id, r.quantity, r.unit_price_minor, r.fees_minor, r.total_minor, r.currency, r.lines,
            (select t.tax from quotes q join quote_taxes t on t.quote_id = q.id
              where q.reservation_id = o.reservation_id limit 1) as tax, o.created_at
       from orders o join shops s on s.id = o.shop_id join reservations r on r.id = o.reservation_id ${BUYER_JOIN}
      where o.id = ?`,
    [orderId],
  );
  if (!f) throw new Error(`order ${orderId} is missing`);
  const [inv] = invoiceId
    ? await db.execute<InvoiceRow & { corrects: string | null }>(
        `select ${INVOICE_COLUMNS},
                (select x.number from invoices x where x.order_id = i.order_id and x.kind = 'invoice') as corrects
           ${INVOICE_FROM} where i.id = ?`,
        [invoiceId],
      )
    : [];
  const sold = f.lines ?? [{ tierId: f.tier_id, quantity: f.quantity, unitPriceMinor: f.unit_price_minor }];
  const lines = inv?.refund_id ? await refundedLines(db, inv.refund_id, sold) : sold;
  const names = new Map(
    (
      await db.execute<{ id: string; name: string }>(
        'select id, name from tiers where id in (select jsonb_array_elements_text(?::jsonb))',
        [JSON.stringify(lines.map((l) => l.tierId))],
      )
    ).map((t) => [t.id, t.name]),
  );
  const settings = taxSettingsOf(f.tax_settings);
  let tax = inv ? (inv.tax ?? undefined) : (f.tax ?? undefined);
  const totalMinor = inv?.kind === 'credit_note' ? inv.amount_minor : f.total_minor;
  if (tax && inv?.kind === 'credit_note') tax = scaleTax(tax, totalMinor, f.total_minor);
  const doc: InvoiceDocument = {
    kind: inv?.kind ?? 'receipt',
    lang: resolveLang([f.lang]),
    number: inv?.number ?? null,
    correctsNumber: inv?.kind === 'credit_note' ? inv.corrects : null,
    issuedAt: new Date(inv?.created_at ?? f.created_at),
    orderId,
    shopName: f.shop_name,
    seller: inv ? (inv.seller ?? undefined) : settings?.seller,
    buyerEmail: f.buyer_email,
    lines: lines.map((l) => ({
      description: names.get(l.tierId) ?? l.tierId,
      quantity: l.quantity,
      unitPriceMinor: l.unitPriceMinor,
      amountMinor: l.unitPriceMinor * l.quantity,
    })),
    feesMinor: inv?.kind === 'credit_note' ? 0 : f.fees_minor,
    totalMinor,
    currency: f.currency,
    tax,
  };
  const pdf = await invoicePdf(doc);
  return { filename: `${(inv?.number ?? `receipt-${orderId}`).replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, pdf };
}

/** A refund's tickets as lines: how many of each tier, at the tier's price in the order. */
async function refundedLines(db: Database, refundId: string, sold: OrderFacts['lines'] & object) {
  const counts = await db.execute<{ tier_id: string; n: number }>(
    `select t.tier_id, count(*)::int as n from refunds f
       join tickets t on t.id in (select jsonb_array_elements_text(f.ticket_ids))
      where f.id = ? group by t.tier_id order by t.tier_id`,
    [refundId],
  );
  return counts.map((c) => ({
    tierId: c.tier_id,
    quantity: c.n,
    unitPriceMinor: sold.find((l) => l.tierId === c.tier_id)?.unitPriceMinor ?? 0,
  }));
}

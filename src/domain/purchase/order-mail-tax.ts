/**
 * The order confirmation e-mail of a shop with tax settings (src/domain/purchase/order-mail.ts): the tax breakdown per
 * rate under the receipt, and, when the shop invoices, the invoice PDF attached. A shop without tax settings costs
 * nothing here: the e-mail is returned as it came, without a statement.
 */
import { INVOICE_WORDS } from '../../documents/invoice-strings.ts';
import type { Database } from '../../storage/database.ts';
import { orderInvoiceAttachment } from './invoices.ts';
import { taxSettingsOf, type TaxBreakdown } from './tax.ts';

interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

function money(lang: string, minor: number, currency: string): string {
  const f = new Intl.NumberFormat(lang, { style: 'currency', currency });
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The breakdown as text lines in `lang`: one per rate (net, tax, gross), then whether prices included the tax. */
export function taxLines(tax: TaxBreakdown, lang: string, currency: string): string[] {
  const w = INVOICE_WORDS[lang] ?? INVOICE_WORDS.en!;
  const m = (n: number) => money(lang, n, currency);
  return [
    ...tax.rates.map(
      (r) =>
        `${r.name} (${r.percent} %): ` +
        `${w.net} ${m(r.netMinor)}, ${w.tax} ${m(r.taxMinor)}, ${w.gross} ${m(r.grossMinor)}`,
    ),
    tax.pricesIncludeTax ? w.pricesInclude : w.pricesExclude,
  ];
}

/** Adds the tax breakdown (and the invoice, when there is one) to an order's confirmation e-mail. */
export async function withOrderTax<M extends { text: string; html?: string | undefined; attachments?: Attachment[] }>(
  db: Database,
  order: { id: string; taxSettings: unknown; currency: string },
  lang: string,
  mail: M,
): Promise<M> {
  if (!taxSettingsOf(order.taxSettings)) return mail;
  const [row] = await db.execute<{ tax: TaxBreakdown | null }>(
    `select t.tax from orders o join quotes q on q.reservation_id = o.reservation_id
       join quote_taxes t on t.quote_id = q.id where o.id = ? limit 1`,
    [order.id],
  );
  const lines = row?.tax ? taxLines(row.tax, lang, order.currency) : [];
  const invoice = await orderInvoiceAttachment(db, order.id);
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    ...mail,
    text: lines.length ? `${mail.text}\n\n${lines.join('\n')}` : mail.text,
    ...(mail.html && lines.length ? { html: `${mail.html}\n<p>${lines.map(escape).join('<br>')}</p>` } : {}),
    ...(invoice ? { attachments: [...(mail.attachments ?? []), invoice] } : {}),
  };
}

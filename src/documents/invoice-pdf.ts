/**
 * The PDF of an order's receipt, invoice or credit note, in the buyer's language: seller, buyer e-mail, lines, fees,
 * the tax breakdown per rate and the total. Built with the shared factory (src/documents/pdf.ts, DejaVu Sans embedded).
 */
import { createPdf, PDF_FONTS, type PdfDocument } from './pdf.ts';
import { INVOICE_WORDS } from './invoice-strings.ts';

/** Everything a document shows; amounts in minor units. */
export interface InvoiceDocument {
  kind: 'receipt' | 'invoice' | 'credit_note';
  lang: string;
  /** The invoice number (`<prefix>-<n>`); null for a receipt. */
  number: string | null;
  /** A credit note's invoice number. */
  correctsNumber?: string | null | undefined;
  issuedAt: Date;
  orderId: string;
  shopName: string;
  seller?: { legalName: string; address: string; vatId?: string | undefined } | undefined;
  buyerEmail: string | null;
  lines: { description: string; quantity: number; unitPriceMinor: number; amountMinor: number }[];
  feesMinor: number;
  totalMinor: number;
  currency: string;
  tax?:
    | {
        pricesIncludeTax: boolean;
        rates: { name: string; percent: number; netMinor: number; taxMinor: number; grossMinor: number }[];
      }
    | undefined;
}

function money(lang: string, minor: number, currency: string): string {
  const f = new Intl.NumberFormat(lang, { style: 'currency', currency });
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

/** Renders a document as PDF bytes. */
export function invoicePdf(d: InvoiceDocument): Promise<Buffer> {
  const w = INVOICE_WORDS[d.lang] ?? INVOICE_WORDS.en!;
  const title = d.kind === 'receipt' ? w.receipt : d.kind === 'invoice' ? w.invoice : w.creditNote;
  const m = (minor: number) => money(d.lang, minor, d.currency);
  return createPdf({ title: d.number ? `${title} ${d.number}` : title, lang: d.lang, createdAt: d.issuedAt }, (doc) => {
    doc.addPage();
    doc.font(PDF_FONTS.bold).fontSize(20).text(title);
    doc.font(PDF_FONTS.body).fontSize(10).moveDown(0.5);
    if (d.number) doc.text(`${w.number}: ${d.number}`);
    if (d.correctsNumber) doc.text(`${w.creditFor}: ${d.correctsNumber}`);
    doc.text(`${w.date}: ${d.issuedAt.toISOString().slice(0, 10)}`);
    doc.text(`${w.order}: ${d.orderId}`);
    doc.moveDown();
    doc.font(PDF_FONTS.bold).text(w.seller).font(PDF_FONTS.body);
    doc.text(d.seller?.legalName ?? d.shopName);
    if (d.seller) doc.text(d.seller.address);
    if (d.seller?.vatId) doc.text(`${w.vatId}: ${d.seller.vatId}`);
    if (d.buyerEmail) {
      doc.moveDown().font(PDF_FONTS.bold).text(w.buyer).font(PDF_FONTS.body).text(d.buyerEmail);
    }
    doc.moveDown();
    row(doc, [w.item, w.quantity, w.unitPrice, w.amount], true);
    for (const l of d.lines) row(doc, [l.description, String(l.quantity), m(l.unitPriceMinor), m(l.amountMinor)]);
    if (d.feesMinor) row(doc, [w.fees, '', '', m(d.feesMinor)]);
    if (d.tax) {
      doc.moveDown();
      row(doc, [w.rate, w.net, w.tax, w.gross], true);
      for (const r of d.tax.rates)
        row(doc, [`${r.name} (${r.percent} %)`, m(r.netMinor), m(r.taxMinor), m(r.grossMinor)]);
      doc.text(d.tax.pricesIncludeTax ? w.pricesInclude : w.pricesExclude, 50);
    }
    doc.moveDown();
    doc.font(PDF_FONTS.bold).text(`${d.kind === 'credit_note' ? w.refunded : w.total}: ${m(d.totalMinor)}`, 50);
  });
}

/** One table row at fixed columns (item, then three right-hand columns). */
function row(doc: PdfDocument, cells: string[], header = false): void {
  const y = doc.y;
  doc.font(header ? PDF_FONTS.bold : PDF_FONTS.body);
  const xs = [50, 270, 340, 430];
  const widths = [215, 65, 85, 115];
  let bottom = y;
  cells.forEach((c, i) => {
    doc.text(c, xs[i]!, y, { width: widths[i]!, align: i === 0 ? 'left' : 'right' });
    bottom = Math.max(bottom, doc.y);
  });
  doc.font(PDF_FONTS.body);
  doc.x = 50;
  doc.y = bottom + 2;
}

/**
 * An order's tickets as a PDF: one A4 page per ticket with the event, its time in the event's time zone, the venue,
 * the tier, the attendee (when the ticket names one), the ticket id and the QR code of the ticket's signed code, in
 * the buyer's language (words from the catalogs' `mail.ticketPdf`).
 */
import type { Translate } from '../i18n/i18n.ts';
import { formatEventTime } from '../kernel/event-time.ts';
import { createPdf, PDF_FONTS, type PdfDocument } from './pdf.ts';

/** What the ticket PDF shows. */
export interface TicketPdfData {
  lang: string;
  merchant: string;
  event: string;
  eventStartsAt: Date;
  eventTimeZone: string;
  venue: string | null;
  orderId: string;
  /** When the document was made (its creation date). */
  createdAt: Date;
  tickets: { id: string; tier: string; attendeeName: string | null; code: string }[];
}

/** The file name the PDF is offered under. */
export const ticketPdfFilename = (orderId: string): string => `tickets-${orderId}.pdf`;

type QrCodes = typeof import('qrcode');

/**
 * Draws the QR code of `content` as vector squares (error correction M, a quiet zone of 2 modules, as the e-mail's and
 * the pages'): sharp at any zoom, and about ten times cheaper than encoding a PNG and embedding it.
 */
function drawQr(QRCode: QrCodes, doc: PdfDocument, content: string, x: number, y: number, size: number): void {
  const { modules } = QRCode.create(content, { errorCorrectionLevel: 'M' });
  const margin = 2;
  const unit = size / (modules.size + 2 * margin);
  doc.save().fillColor('#000000');
  for (let row = 0; row < modules.size; row++)
    for (let col = 0; col < modules.size; col++)
      if (modules.get(row, col)) doc.rect(x + (col + margin) * unit, y + (row + margin) * unit, unit, unit);
  doc.fill().restore();
}

/** Renders the tickets PDF in the language of `t`. */
export async function renderTicketPdf(t: Translate, d: TicketPdfData): Promise<Buffer> {
  const title = t('mail.ticketPdf.title', { event: d.event });
  const { default: QRCode } = await import('qrcode'); // loaded with the first PDF, not before ready
  return createPdf({ title, author: d.merchant, lang: d.lang, createdAt: d.createdAt }, (doc) => {
    const when = formatEventTime(d.lang, d.eventStartsAt, d.eventTimeZone);
    d.tickets.forEach((ticket, i) => {
      doc.addPage();
      const line = (label: string, value: string) => {
        doc.font(PDF_FONTS.bold).fontSize(10).fillColor('#555555').text(label);
        doc.font(PDF_FONTS.body).fontSize(13).fillColor('#000000').text(value).moveDown(0.6);
      };
      doc.font(PDF_FONTS.body).fontSize(10).fillColor('#555555');
      doc.text(t('mail.ticketPdf.page', { n: i + 1, count: d.tickets.length, merchant: d.merchant }));
      doc.moveDown(0.5).font(PDF_FONTS.bold).fontSize(22).fillColor('#000000').text(d.event).moveDown(0.8);
      line(t('mail.ticketPdf.when'), when);
      if (d.venue) line(t('mail.ticketPdf.venue'), d.venue);
      line(t('mail.ticketPdf.tier'), ticket.tier);
      if (ticket.attendeeName) line(t('mail.ticketPdf.attendee'), ticket.attendeeName);
      line(t('mail.ticketPdf.ticketId'), ticket.id);
      line(t('mail.ticketPdf.order'), d.orderId);
      const size = 240;
      drawQr(QRCode, doc, ticket.code, (doc.page.width - size) / 2, doc.y + 10, size);
      doc.y += size + 30;
      doc.font(PDF_FONTS.body).fontSize(11).text(t('mail.ticketPdf.admits'), { align: 'center' });
    });
  });
}

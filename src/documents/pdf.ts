/**
 * The one way a PDF is made (tickets, invoices): a pdfkit document with the DejaVu Sans TrueType fonts embedded, so
 * every language's letters render (Hungarian ő and ű are not in the standard PDF fonts), collected into a Buffer.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** pdfkit (and fontkit, some hundred modules) is loaded on the first PDF, not at start (docs/performance.md). */
let pdfkit: Promise<{ default: typeof import('pdfkit') }> | undefined;

/** The registered font names: `body` (DejaVu Sans) and `bold` (DejaVu Sans Bold). */
export const PDF_FONTS = { body: 'body', bold: 'bold' } as const;

const FONT_DIR = fileURLToPath(new URL('./ttf/', import.meta.resolve('dejavu-fonts-ttf/package.json')));
/** The font files, read once per process (about 1 MB together). */
let fonts: { body: Buffer; bold: Buffer } | undefined;
function fontFiles(): { body: Buffer; bold: Buffer } {
  fonts ??= {
    body: readFileSync(`${FONT_DIR}DejaVuSans.ttf`),
    bold: readFileSync(`${FONT_DIR}DejaVuSans-Bold.ttf`),
  };
  return fonts;
}

/** What a document says about itself (the PDF's Info dictionary). */
export interface PdfInfo {
  title: string;
  author?: string | undefined;
  /** The document's language (BCP 47), for readers and screen readers. */
  lang: string;
}

/** The document type `createPdf` hands to a drawing function. */
export type PdfDocument = PDFKit.PDFDocument;

/**
 * Draws a PDF with `draw` (A4, 50 pt margins, the body font selected; fonts are subset, so a file carries only the
 * glyphs it uses) and returns its bytes. The creation date is `createdAt`, so the same input gives the same text.
 */
export async function createPdf(
  info: PdfInfo & { createdAt: Date },
  draw: (doc: PdfDocument) => void | Promise<void>,
): Promise<Buffer> {
  const files = fontFiles();
  const { default: PDFDocument } = await (pdfkit ??= import('pdfkit'));
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    autoFirstPage: false,
    lang: info.lang,
    displayTitle: true,
    info: {
      Title: info.title,
      ...(info.author ? { Author: info.author } : {}),
      Creator: 'Tessera',
      CreationDate: info.createdAt,
    },
  });
  doc.registerFont(PDF_FONTS.body, files.body);
  doc.registerFont(PDF_FONTS.bold, files.bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  try {
    await draw(doc);
  } finally {
    doc.end();
  }
  return done;
}

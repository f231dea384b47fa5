/**
 * A ticket's QR code as an SVG image, with the `qrcode` package (error correction M, the same content as the e-mail's
 * PNG).
 */

/** The options every ticket QR code is drawn with (a test renders the same content with them and compares). */
export const TICKET_QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;

/**
 * The QR code of `content` as a `data:image/svg+xml;base64,…` URL: an image the pages' CSP allows (`img-src data:`).
 */
export async function ticketQrDataUrl(content: string): Promise<string> {
  const { default: QRCode } = await import('qrcode'); // loaded on the first ticket page, not before ready
  const svg = await QRCode.toString(content, TICKET_QR_OPTIONS);
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** CSV for spreadsheets: RFC 4180 (CRLF, quoted when needed), UTF-8 with a BOM, formulas neutralised. */
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * Streams `rows` as CSV under a `header` line, reading the next rows only as the reader drains (constant memory for
 * any number of rows). A cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`, so a spreadsheet shows
 * it as text instead of running it (CSV injection); null and undefined are empty cells; dates are RFC 3339.
 */
export function csvStream(header: readonly string[], rows: AsyncIterable<readonly unknown[]>): Readable {
  const csv = stringify({
    bom: true,
    record_delimiter: '\r\n',
    escape_formulas: true,
    cast: { date: (d) => d.toISOString(), boolean: (b) => (b ? 'true' : 'false') },
  });
  async function* lines() {
    yield header;
    yield* rows;
  }
  // A failed read destroys the CSV stream with its error (the reader sees it; an HTTP answer is cut short).
  pipeline(Readable.from(lines(), { objectMode: true }), csv, () => {});
  return csv;
}

import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { decimalString } from './money.js';

/**
 * CSV (RFC 4180) written as a stream from keyset-paginated batches: memory stays at one batch
 * whatever the number of rows.
 *
 * Text cells are where a payer or merchant can put a formula (OWASP "CSV injection"), so each data
 * cell of text is quoted, and a ' goes before every place a spreadsheet might start a formula: the first non-blank
 * character (= + - @, or a tab or CR), and any = + - @ right after a separator that a spreadsheet in
 * another locale may split on (, ; tab |), so `a;=1+2` cannot become a cell `=1+2` there.
 */
export type Cell = string | number | boolean | null | undefined;

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';
export const EXPORT_BATCH_SIZE = 1000;

const FORMULA_AT_START = /^(?:\s*[=+\-@]|[\t\r])/;
const FORMULA_AFTER_SEPARATOR = /([,;\t|\r\n]\s*)(?=[=+\-@])/g;

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  let text = value.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  if (FORMULA_AT_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export const csvLine = (cells: Cell[]) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * The CSV of every row `fetchBatch` yields, header first. `fetchBatch(beforeId)` returns the next
 * rows below that id, newest first (undefined: the first batch); an empty or short batch ends it.
 */
export function csvStream<T extends { id: number }>(
  header: string[],
  fetchBatch: (beforeId: number | undefined, limit: number) => Promise<T[]>,
  toCells: (row: T) => Cell[],
): Readable {
  async function* lines() {
    // Our own column names: plain, as every reader expects a header row.
    yield `${header.join(',')}\r\n`;
    let beforeId: number | undefined;
    for (;;) {
      const rows = await fetchBatch(beforeId, EXPORT_BATCH_SIZE);
      if (rows.length > 0) yield rows.map((row) => csvLine(toCells(row))).join('');
      if (rows.length < EXPORT_BATCH_SIZE) return;
      beforeId = rows[rows.length - 1].id;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

/** A money column pair: exact integer minor units, then the decimal in major units ("10.50"). */
export const moneyCells = (minor: number, currency: string): Cell[] => [minor, decimalString(minor, currency)];

interface Reply<R> {
  type(contentType: string): R;
  header(name: string, value: string): R;
  send(payload: Readable): R;
}

/** Sends the stream as an attachment named "<name>-<UTC timestamp>.csv". */
export function sendCsv<R extends Reply<R>>(reply: R, name: string, now: Date, csv: Readable): R {
  const filename = `${name}-${now.toISOString().replace(/[:.]/g, '-')}.csv`;
  return reply.type(CSV_CONTENT_TYPE).header('content-disposition', `attachment; filename="${filename}"`).send(csv);
}

/** The documented 200 of an export route. */
export const CsvResponse = {
  description: 'CSV (RFC 4180, CRLF line ends), header row first; money as minor units and as a decimal column',
  // A stream on our side, a string in the document.
  content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string' }) } },
};

export const CSV_DESCRIPTION =
  'Streams every row of the filtered list (no page size, no cursor) as an attachment. Each money column comes ' +
  'twice: integer minor units (`…Minor`) and the decimal in major units. Text cells are quoted, and a text cell whose ' +
  "first non-blank character is = + - @ (or a tab or CR) is prefixed with ', as is any = + - @ right after a , ; tab " +
  'or | inside it, so spreadsheets do not run them as formulas.';

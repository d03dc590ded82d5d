import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { decimalString } from './money.js';

/**
 * CSV (RFC 4180) written as a stream from keyset-paginated batches: memory stays at one batch
 * whatever the number of rows. A cell starting with = + - @ (or a tab or carriage return) is
 * prefixed with ' so a spreadsheet shows it as text instead of running it as a formula (OWASP
 * "CSV injection").
 */
export type Cell = string | number | boolean | null | undefined;

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';
export const EXPORT_BATCH_SIZE = 1000;

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
    yield csvLine(header);
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
  'twice: integer minor units (`…Minor`) and the decimal in major units. Text cells starting with = + - or @ ' +
  "are prefixed with ' so spreadsheets do not run them as formulas.";

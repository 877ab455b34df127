/** A number as the API writes it (an amount, a count): left as it is, a minus sign included. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
/** What a spreadsheet would take for a formula at a cell's start (OWASP's CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): text a spreadsheet would run as a formula gets a leading `'`, and a
 * field holding a comma, quote or line break is quoted. Numbers are never touched, so exact
 * decimal amounts read back as they were written.
 */
export function csvField(value: string): string {
  const safe = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows of fields as CSV lines, each ended by CRLF. */
export function csvRows(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

/** A record's field as CSV text: text as it is, null as nothing, a nested object as its JSON. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

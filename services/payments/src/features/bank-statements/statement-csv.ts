import { AppError } from '@wallet/kit';

/** One CSV record as its raw fields, with the 1-based line it started on. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * RFC 4180 records: comma separated, fields optionally in double quotes (a doubled quote inside
 * is one quote; quoted fields may hold commas and line breaks), CRLF or LF line ends, a UTF-8
 * byte-order mark ignored, blank lines skipped.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let line = 1;
  let recordLine = 1;
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !fieldStarted)) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i] as string;
    if (quoted) {
      if (char === '"') {
        if (source[i + 1] === '"') {
          field += '"';
          i += 1;
        } else {
          quoted = false;
        }
      } else {
        if (char === '\n') line += 1;
        field += char;
      }
      continue;
    }
    if (char === '"' && field === '') {
      quoted = true;
      fieldStarted = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (quoted)
    throw new AppError('VALIDATION_ERROR', `CSV: a quoted field opened on line ${recordLine} is never closed`, {
      fields: [{ path: 'body', message: 'unterminated quoted field', line: recordLine }],
    });
  if (field !== '' || fieldStarted || fields.length > 0) endRecord();
  return records;
}

const HEADER = ['date', 'reference', 'amount', 'description'];

/** Statement lines of a CSV with the header `date,reference,amount,description` (description may be left out). */
export function statementLinesOfCsv(
  text: string,
): Array<{ line: number; date: string; reference: string; amount: string; description?: string }> {
  const [header, ...rows] = parseCsv(text);
  const names = header?.fields.map((name) => name.trim().toLowerCase()) ?? [];
  const expected = HEADER.slice(0, names.length);
  if (names.length < 3 || names.length > 4 || names.some((name, index) => name !== expected[index])) {
    throw new AppError('VALIDATION_ERROR', 'CSV: the header must be date,reference,amount,description', {
      fields: [{ path: 'body', message: 'header must be date,reference,amount,description', line: 1 }],
    });
  }
  return rows.map((row) => {
    if (row.fields.length !== names.length) {
      throw new AppError('VALIDATION_ERROR', `CSV: line ${row.line} has ${row.fields.length} fields, the header ${names.length}`, {
        fields: [{ path: 'body', message: 'wrong number of fields', line: row.line }],
      });
    }
    const [date = '', reference = '', amount = '', description] = row.fields;
    return {
      line: row.line,
      date: date.trim(),
      reference,
      amount: amount.trim(),
      ...(description !== undefined && description !== '' ? { description } : {}),
    };
  });
}

import { createApiClient } from '../src/api/client';
import { csvField } from '@wallet/contracts/csv';
import { STATEMENT_CSV_HEADER, statementCsv, type StatementLine } from '../src/export/csv';
import { fetchWholeStatement } from '../src/export/statement';
import { answer, startLocalApi } from './local-api';

function line(index: number, amount: string, balanceAfter: string): StatementLine {
  return {
    journalEntryId: `je_${index}`,
    kind: 'transfer',
    direction: index % 2 === 0 ? 'CR' : 'DR',
    amount,
    balanceAfter,
    createdAt: `2026-11-2${index}T10:00:00.000Z`,
  };
}

describe('statementCsv', () => {
  it('writes the header and each line with the API strings untouched, newest first as given', () => {
    const csv = statementCsv([line(2, '1234567.89', '9007199254740993.01'), line(1, '0.10', '-5.00')], 'USD');
    expect(csv).toBe(
      [
        STATEMENT_CSV_HEADER.join(','),
        '2026-11-22T10:00:00.000Z,je_2,transfer,CR,1234567.89,9007199254740993.01,USD',
        '2026-11-21T10:00:00.000Z,je_1,transfer,DR,0.10,-5.00,USD',
        '',
      ].join('\r\n'),
    );
  });

  it('quotes fields holding commas, quotes or line breaks (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('keeps a spreadsheet from running text as a formula, and leaves numbers as they are', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('+256700000001')).toBe("'+256700000001");
    expect(csvField('-5.00')).toBe('-5.00');
    expect(csvField('-')).toBe("'-");
  });

  it('writes only the header for an empty statement', () => {
    expect(statementCsv([], 'UGX')).toBe(`${STATEMENT_CSV_HEADER.join(',')}\r\n`);
  });
});

describe('fetchWholeStatement', () => {
  it('walks every page of the statement through the API with the largest page size', async () => {
    const pages: Record<string, string> = {
      '': JSON.stringify({ data: [line(5, '1.00', '3.00'), line(4, '1.00', '2.00')], nextCursor: 'c1' }),
      c1: JSON.stringify({ data: [line(3, '1.00', '1.00')], nextCursor: 'c2' }),
      c2: JSON.stringify({ data: [line(2, '0.50', '0.00')], nextCursor: null }),
    };
    const api = await startLocalApi((request, response) => {
      const url = new URL(request.url, 'http://local');
      if (url.pathname !== '/v1/wallets/wl_9/entries') return answer(response, 404, '{}');
      answer(response, 200, pages[url.searchParams.get('cursor') ?? ''] ?? '{}');
    });
    try {
      const lines = await fetchWholeStatement(createApiClient({ baseUrl: api.origin, readCookies: () => '' }), 'wl_9');
      expect(lines.map((entry) => entry.journalEntryId)).toEqual(['je_5', 'je_4', 'je_3', 'je_2']);
      expect(api.requests.map((request) => request.url)).toEqual([
        '/v1/wallets/wl_9/entries?limit=200',
        '/v1/wallets/wl_9/entries?limit=200&cursor=c1',
        '/v1/wallets/wl_9/entries?limit=200&cursor=c2',
      ]);
      expect(statementCsv(lines, 'USD').split('\r\n')[4]).toBe('2026-11-22T10:00:00.000Z,je_2,transfer,CR,0.50,0.00,USD');
    } finally {
      await api.close();
    }
  });
});

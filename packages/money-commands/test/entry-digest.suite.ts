import fc from 'fast-check';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { DigestSum, textHash64 } from '@wallet/money-commands';

/**
 * A full run compares a service's records with the ledger's entries by digests that each side
 * makes on its own: the kit's hash of a term must be PostgreSQL's hashtextextended of it, bit for
 * bit, or every full run falls back to comparing record by record.
 */
describe('entry digests', () => {
  let db: Db;

  beforeAll(async () => {
    db = createDb(await createTestDatabase('entry_digest'), { applicationName: 'kit-entry-digest-test' });
  });

  afterAll(async () => {
    await db.destroy();
  });

  async function postgresHashes(texts: readonly string[]): Promise<string[]> {
    const result = await db.raw(
      'SELECT hashtextextended(t, 0)::text AS hash FROM unnest(?::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n',
      [texts as string[]],
    );
    return (result.rows as Array<{ hash: string }>).map((row) => row.hash);
  }

  it("hashes any text as PostgreSQL's hashtextextended(text, 0) does, whatever its length and characters", async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 80 }).filter((each) => !each.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 30 }), async (texts) => {
        expect(texts.map((each) => textHash64(each).toString())).toEqual(await postgresHashes(texts));
      }),
      { numRuns: 50 },
    );
    // Every tail length of lookup3's 12-byte blocks, and a long term.
    const lengths = Array.from({ length: 30 }, (_, length) => 'abcdefghijklmnopqrstuvwxyz0123'.slice(0, length));
    expect(lengths.map((each) => textHash64(each).toString())).toEqual(await postgresHashes(lengths));
    expect(textHash64('x'.repeat(5000)).toString()).toEqual((await postgresHashes(['x'.repeat(5000)]))[0]);
  });

  it("sums an entry's terms as PostgreSQL sums them, however many", async () => {
    const posting = (n: number) => ({
      journalEntryId: `je_${n}`,
      kind: 'transfer' as const,
      reference: { type: 'transfer', id: `tr_${n}` },
      lines: [
        { direction: 'DR' as const, accountName: 'wallet:a', walletId: 'wal_a', amount: '10.50', currencyCode: 'USD' },
        { direction: 'CR' as const, accountName: 'revenue:fees', amount: '10.5', currencyCode: 'USD' },
      ],
    });
    const scope = { tenantId: 'tn_1', environment: 'live' as const };
    const sum = new DigestSum();
    const texts: string[] = [];
    for (let n = 0; n < 2000; n += 1) {
      sum.addPosting(scope, posting(n));
      texts.push(
        [`je_${n}`, 'tn_1', 'live', 'transfer', 'transfer', `tr_${n}`].join('\u001f'),
        [`je_${n}`, 'DR', 'wallet:a', 'wal_a', 'USD', '10.5'].join('\u001f'),
        [`je_${n}`, 'CR', 'revenue:fees', '', 'USD', '10.5'].join('\u001f'),
      );
    }
    const result = await db.raw('SELECT sum(hashtextextended(t, 0))::text AS digest FROM unnest(?::text[]) AS u(t)', [texts]);
    expect(sum.value()).toEqual({ entries: 2000, digest: (result.rows[0] as { digest: string }).digest });
  });
});

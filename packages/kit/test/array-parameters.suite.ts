import fc from 'fast-check';
import { arrayLiteral, createDb, type Db, prepared } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

describe('array parameters of prepared statements', () => {
  let db: Db;

  beforeAll(async () => {
    db = createDb(await createTestDatabase('array_parameters'), { applicationName: 'kit-array-parameters-test' });
  });

  afterAll(async () => {
    await db.destroy();
  });

  async function roundTrip(values: ReadonlyArray<string | null>): Promise<Array<string | null>> {
    const result = await prepared<{ rows: Array<{ value: Array<string | null> }> }>(db, 'SELECT CAST(? AS text[]) AS value', [
      values as string[],
    ]);
    return result.rows[0]?.value ?? [];
  }

  it('reaches PostgreSQL as exactly the strings sent, whatever they hold', async () => {
    // Quotes, backslashes, braces, commas, the word NULL, control characters and astral
    // characters; not NUL or lone surrogates, which a PostgreSQL text cannot hold at all.
    const special = fc.constantFrom('"', '\\', '{', '}', ',', ' ', 'NULL', '\n', '\t', '\u0001', '\u2028', '😀', 'é');
    const anyCharacter = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).filter((character) => !character.includes('\u0000'));
    const text = fc.string({ unit: fc.oneof(special, anyCharacter), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 12 }), async (values) => {
        expect(await roundTrip(values)).toEqual(values);
      }),
      { numRuns: 300 },
    );
  });

  it('carries JSON texts, numbers and booleans', async () => {
    const answer = JSON.stringify({ id: 'tx_1', amount: '10.00', note: 'say "hi"\nback\\slash' });
    expect(await roundTrip([answer, null, ''])).toEqual([answer, null, '']);
    const result = await prepared<{ rows: Array<{ amounts: string[]; flags: boolean[]; counts: string[] }> }>(
      db,
      'SELECT CAST(? AS numeric[])::text[] AS amounts, CAST(? AS boolean[]) AS flags, CAST(? AS bigint[])::text[] AS counts',
      [
        ['10.00', '0.1', '-3'],
        [true, false],
        [1, 9007199254740991],
      ],
    );
    expect(result.rows[0]).toEqual({ amounts: ['10.00', '0.1', '-3'], flags: [true, false], counts: ['1', '9007199254740991'] });
  });

  it('writes the literal natively where JSON escapes as PostgreSQL does, and leaves the rest to node-postgres', () => {
    expect(arrayLiteral(['a"b', 'c\\d', null, 7, true])).toBe('{"a\\"b","c\\\\d",null,7,true}');
    expect(arrayLiteral([])).toBe('{}');
    // JSON would write these as \n and \u0001, which an array literal reads as "n" and "u0001".
    expect(arrayLiteral(['line\nbreak'])).toBeNull();
    expect(arrayLiteral(['\u0001'])).toBeNull();
    expect(arrayLiteral([Number.NaN])).toBeNull();
    expect(arrayLiteral([new Date(0)])).toBeNull();
    expect(arrayLiteral([['nested']])).toBeNull();
  });
});

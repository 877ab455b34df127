import fc from 'fast-check';
import { AppError, cursorFields, decodeCursor, encodeCursor, useCursorSecret } from '@wallet/kit';

const SHAPE = { seq: cursorFields.seq, id: cursorFields.key };
const position = fc.record({
  seq: fc.bigInt({ min: 0n, max: 9_223_372_036_854_775_807n }).map(String),
  id: fc.stringMatching(/^[\x21-\x7e]{1,128}$/),
});

function codeOf(cursor: string): string {
  try {
    decodeCursor(cursor, SHAPE);
    return 'OK';
  } catch (error) {
    return error instanceof AppError ? error.code : 'THROWN';
  }
}

describe('cursors', () => {
  beforeAll(() => useCursorSecret('cursor-tests-secret'));

  it('reads back every position it issued', () => {
    fc.assert(fc.property(position, (at) => expect(decodeCursor(encodeCursor(at), SHAPE)).toEqual(at)));
  });

  it('refuses a position it did not issue, however well formed, and any change to one it did', () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.constantFrom(...'ABCDEFabcdef0123456789-_.'), (at, index, replacement) => {
        const forged = Buffer.from(JSON.stringify(at)).toString('base64url');
        expect(codeOf(forged)).toBe('INVALID_CURSOR');
        expect(codeOf(`${forged}.${'A'.repeat(22)}`)).toBe('INVALID_CURSOR');
        const issued = encodeCursor(at);
        const at_ = index % issued.length;
        const tampered = issued.slice(0, at_) + replacement + issued.slice(at_ + 1);
        if (tampered !== issued) expect(codeOf(tampered)).toBe('INVALID_CURSOR');
      }),
    );
  });

  it('refuses every other spelling of its MAC, even one that decodes to the same bytes', () => {
    const issued = encodeCursor({ seq: '9', id: 'a' });
    for (const last of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
      const respelled = issued.slice(0, -1) + last;
      if (respelled !== issued) expect(codeOf(respelled)).toBe('INVALID_CURSOR');
    }
  });

  it("refuses a cursor of another secret, and positions out of their columns' range even when signed", () => {
    const issued = encodeCursor({ seq: '1', id: 'a' });
    useCursorSecret('another-secret');
    expect(codeOf(issued)).toBe('INVALID_CURSOR');
    expect(codeOf(encodeCursor({ seq: '9223372036854775808', id: 'a' }))).toBe('INVALID_CURSOR');
    expect(codeOf(encodeCursor({ seq: '1', id: 'a\u0000' }))).toBe('INVALID_CURSOR');
    expect(codeOf(encodeCursor({ seq: '1', id: 'a' }))).toBe('OK');
  });
});

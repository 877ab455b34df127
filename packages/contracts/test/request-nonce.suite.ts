import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { isAcceptableRequestNonce, REQUEST_NONCE_PATTERN } from '@wallet/contracts';

/**
 * Nonces as clients make them. fast-check leans towards edge values (arrays of zero bytes),
 * which is not what a random source gives: noBias draws them uniformly, as a client's would.
 */
const randomBytes = (minLength: number, maxLength: number) => fc.noBias(fc.uint8Array({ minLength, maxLength }));
const base64urlNonce = randomBytes(16, 96).map((bytes) => Buffer.from(bytes).toString('base64url'));
const hexNonce = randomBytes(16, 16).map((bytes) => Buffer.from(bytes).toString('hex'));
const uuidV4 = fc.noBias(fc.uuid({ version: 4 }));
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Many cases, since the refusals a random nonce could meet are rare; the check is cheap, so it stays fast. */
const MANY = { numRuns: 100_000 };

describe('random nonces are accepted', () => {
  it('16 to 96 random bytes in base64url (22 to 128 characters)', () => {
    fc.assert(
      fc.property(base64urlNonce, (nonce) => isAcceptableRequestNonce(nonce)),
      MANY,
    );
  });

  it('UUIDs v4, drawn as crypto.randomUUID makes them', () => {
    expect(randomUUID()).toMatch(UUID_V4);
    fc.assert(
      fc.property(uuidV4, (nonce) => UUID_V4.test(nonce) && isAcceptableRequestNonce(nonce)),
      MANY,
    );
  });

  it('32 random hex digits', () => {
    fc.assert(
      fc.property(hexNonce, (nonce) => isAcceptableRequestNonce(nonce)),
      MANY,
    );
  });

  it('the nonces of the shared signing vectors', () => {
    const file = readFileSync(path.join(__dirname, 'signing-vectors.json'), 'utf8');
    const { vectors } = JSON.parse(file) as { vectors: Array<{ nonce: string }> };
    expect(vectors.filter((vector) => !isAcceptableRequestNonce(vector.nonce))).toEqual([]);
  });
});

describe('nonces that are plainly not random are refused', () => {
  it.each([
    ['one character repeated', 'a'.repeat(22)],
    ['two characters alternating', 'ab'.repeat(16)],
    ['a short word repeated', 'nonce'.repeat(6)],
    ['the alphabet', 'abcdefghijklmnopqrstuvwxyz'],
    ['counting in hex', '0123456789abcdef0123456789abcdef'],
    ['a zero UUID', '00000000-0000-0000-0000-000000000000'],
    ['a counting UUID', '12345678-1234-1234-1234-123456789012'],
    ['deadbeef repeated', 'deadbeef'.repeat(4)],
    ['every other letter', 'acegikmoqsuwyACEGIKMOQSUWY'],
  ])('%s', (_what, nonce) => {
    expect(REQUEST_NONCE_PATTERN.test(nonce)).toBe(true);
    expect(isAcceptableRequestNonce(nonce)).toBe(false);
  });

  it('and so is anything outside the form', () => {
    const malformed = ['', 'a', 'Zx9_-.~Qw3Er5Ty7Ui9Op', `${randomUUID()} `, `${randomUUID()}/`, randomUUID().repeat(4)];
    for (const nonce of malformed) expect(isAcceptableRequestNonce(nonce)).toBe(false);
  });
});

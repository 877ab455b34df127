import type { ExpectedPosting, RecordScope } from '@wallet/contracts';
import { canonicalAmount } from './amounts';

/**
 * Digests of journal entries, the same number whether the ledger makes it in SQL from what it
 * posted or a service makes it in JavaScript from what its records meant to post. Each entry
 * gives one term for itself and one per line; a digest is the count of entries and the sum of
 * their terms, so the order of entries and lines does not matter and sums of parts add up.
 *
 * A term is PostgreSQL's `hashtextextended(text, 0)` (the 64-bit lookup3 hash its hash indexes
 * and partitions use), reproduced by `textHash` below, of fields joined by U+001F:
 * - the entry: id, tenant, environment, kind, reference type, reference id;
 * - a line: its entry's id, direction, account name, wallet id (empty for none), currency,
 *   amount in its one spelling (canonicalAmount; `trim_scale` in SQL).
 * entryTermSql and lineTermSql below make the same terms in SQL (the ledger's of what it posted,
 * a service's of its records where it keeps them). Two
 * sides that spell an entry differently only get different digests: a caller then compares
 * record by record, so a digest decides how fast a check is, never what it finds.
 */

export const DIGEST_FIELD_SEPARATOR = '\u001f';

/** U+001F as a PostgreSQL literal. */
const SQL_SEPARATOR = `E'\\x1f'`;

/** An entry's term in SQL, from SQL expressions of its fields: the text `addPosting` hashes for the entry. */
export function entryTermSql(entry: {
  id: string;
  tenantId: string;
  environment: string;
  kind: string;
  referenceType: string;
  referenceId: string;
}): string {
  return `hashtextextended(concat_ws(${SQL_SEPARATOR}, ${entry.id}, ${entry.tenantId}, ${entry.environment}, ${entry.kind}, ${entry.referenceType}, ${entry.referenceId}), 0)`;
}

/** A line's term in SQL, from SQL expressions of its fields (a null wallet id is none): the text `addPosting` hashes for the line. */
export function lineTermSql(line: {
  entryId: string;
  direction: string;
  accountName: string;
  walletId: string;
  currencyCode: string;
  amount: string;
}): string {
  return `hashtextextended(concat_ws(${SQL_SEPARATOR}, ${line.entryId}, ${line.direction}, ${line.accountName}, coalesce(${line.walletId}, ''), ${line.currencyCode}, trim_scale(${line.amount})::text), 0)`;
}

/** A count of entries and the sum of their terms (signed 64-bit terms, summed without bound). */
export interface Digest {
  entries: number;
  /** The sum, as a decimal integer. */
  digest: string;
}

export const EMPTY_DIGEST: Digest = { entries: 0, digest: '0' };

export function addDigests(a: Digest, b: Digest): Digest {
  return { entries: a.entries + b.entries, digest: (BigInt(a.digest) + BigInt(b.digest)).toString() };
}

export function sameDigest(a: Digest, b: Digest): boolean {
  return a.entries === b.entries && BigInt(a.digest) === BigInt(b.digest);
}

const rotate = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** The bytes of the text being hashed, as UTF-8, in a buffer kept between calls (terms are short). */
let scratch = Buffer.alloc(1024);

/**
 * PostgreSQL's hash_bytes_extended with seed 0 (src/common/hashfn.c, Bob Jenkins' lookup3) of the
 * text's UTF-8 bytes, as the high and low 32 bits of the signed 64-bit `hashtextextended(text, 0)`
 * (for the deterministic collations of text columns). The words are read little-endian, as
 * PostgreSQL reads them on the little-endian machines it runs on here. Arithmetic is on int32
 * (`| 0`): a run hashes millions of terms.
 */
export function textHash(text: string): { high: number; low: number } {
  if (text.length * 3 > scratch.length) scratch = Buffer.alloc(text.length * 3);
  const k = scratch;
  let length = k.write(text, 0, 'utf8');
  let a = (0x9e3779b9 + length + 3923095) | 0;
  let b = a;
  let c = a;
  let i = 0;
  while (length >= 12) {
    a = (a + (k[i]! | (k[i + 1]! << 8) | (k[i + 2]! << 16) | (k[i + 3]! << 24))) | 0;
    b = (b + (k[i + 4]! | (k[i + 5]! << 8) | (k[i + 6]! << 16) | (k[i + 7]! << 24))) | 0;
    c = (c + (k[i + 8]! | (k[i + 9]! << 8) | (k[i + 10]! << 16) | (k[i + 11]! << 24))) | 0;
    a = (a - c) | 0;
    a ^= rotate(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rotate(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rotate(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rotate(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rotate(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rotate(b, 4);
    b = (b + a) | 0;
    i += 12;
    length -= 12;
  }
  // The last 0-11 bytes; the lowest byte of c is left for the length, as lookup3 does.
  if (length >= 11) c = (c + (k[i + 10]! << 24)) | 0;
  if (length >= 10) c = (c + (k[i + 9]! << 16)) | 0;
  if (length >= 9) c = (c + (k[i + 8]! << 8)) | 0;
  if (length >= 8) b = (b + (k[i + 7]! << 24)) | 0;
  if (length >= 7) b = (b + (k[i + 6]! << 16)) | 0;
  if (length >= 6) b = (b + (k[i + 5]! << 8)) | 0;
  if (length >= 5) b = (b + k[i + 4]!) | 0;
  if (length >= 4) a = (a + (k[i + 3]! << 24)) | 0;
  if (length >= 3) a = (a + (k[i + 2]! << 16)) | 0;
  if (length >= 2) a = (a + (k[i + 1]! << 8)) | 0;
  if (length >= 1) a = (a + k[i]!) | 0;
  c ^= b;
  c = (c - rotate(b, 14)) | 0;
  a ^= c;
  a = (a - rotate(c, 11)) | 0;
  b ^= a;
  b = (b - rotate(a, 25)) | 0;
  c ^= b;
  c = (c - rotate(b, 16)) | 0;
  a ^= c;
  a = (a - rotate(c, 4)) | 0;
  b ^= a;
  b = (b - rotate(a, 14)) | 0;
  c ^= b;
  c = (c - rotate(b, 24)) | 0;
  return { high: b, low: c >>> 0 };
}

/** The signed 64-bit hashtextextended(text, 0), for tests and reports. */
export function textHash64(text: string): bigint {
  const { high, low } = textHash(text);
  return (BigInt(high) << 32n) + BigInt(low);
}

/**
 * Sums terms without a BigInt per term: the high halves (signed) and low halves (unsigned) are
 * summed apart as doubles, exact below 2^53, and folded into a BigInt every million terms.
 */
export class DigestSum {
  private high = 0;
  private low = 0;
  private pending = 0;
  private folded = 0n;
  entries = 0;

  private addText(text: string): void {
    const { high, low } = textHash(text);
    this.high += high;
    this.low += low;
    this.pending += 1;
    if (this.pending >= 1_000_000) this.fold();
  }

  private fold(): void {
    this.folded += BigInt(this.high) * 4294967296n + BigInt(this.low);
    this.high = 0;
    this.low = 0;
    this.pending = 0;
  }

  /** One entry exactly as this posting would be posted, in this scope. */
  addPosting(scope: RecordScope, posting: ExpectedPosting & { journalEntryId: string }): void {
    const id = posting.journalEntryId;
    const s = DIGEST_FIELD_SEPARATOR;
    this.addText(
      `${id}${s}${scope.tenantId}${s}${scope.environment}${s}${posting.kind}${s}${posting.reference.type}${s}${posting.reference.id}`,
    );
    for (const line of posting.lines)
      this.addText(
        `${id}${s}${line.direction}${s}${line.accountName}${s}${line.walletId ?? ''}${s}${line.currencyCode}${s}${canonicalAmount(line.amount)}`,
      );
    this.entries += 1;
  }

  addDigest(digest: Digest): void {
    this.fold();
    this.folded += BigInt(digest.digest);
    this.entries += digest.entries;
  }

  value(): Digest {
    this.fold();
    return { entries: this.entries, digest: this.folded.toString() };
  }
}

/** The digest of these postings' entries, each in its record's scope. */
export function postingsDigest(
  postings: ReadonlyArray<{ scope: RecordScope; posting: ExpectedPosting & { journalEntryId: string } }>,
): Digest {
  const sum = new DigestSum();
  for (const { scope, posting } of postings) sum.addPosting(scope, posting);
  return sum.value();
}

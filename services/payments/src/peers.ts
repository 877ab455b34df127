import { z } from 'zod';

const address = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);
const milliseconds = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * The services payments calls and how long it waits for each: features take these from here,
 * never from one another's configuration. A feature with a deadline of its own for a peer
 * (reconciliation's long reads) keeps that one itself.
 */
export const peersConfigShape = {
  /** Identity's internal address: tenants it has not heard of, momo providers and their webhook secrets, members. */
  IDENTITY_URL: address('http://127.0.0.1:8091'),
  PAYMENTS_IDENTITY_TIMEOUT_MS: milliseconds(100, 60_000, 3_000),
  /** The ledger's internal address, for balance, statement and reconciliation reads. */
  LEDGER_URL: address('http://127.0.0.1:8092'),
  /** A balance read the ledger has not answered within this is a 503, never a guessed balance. */
  PAYMENTS_LEDGER_READ_TIMEOUT_MS: milliseconds(100, 60_000, 3_000),
  /** Treasury answers for its own records (float deposits, withdrawals) in check 3. */
  TREASURY_URL: address('http://127.0.0.1:8094'),
};

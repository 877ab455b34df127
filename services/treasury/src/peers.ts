import { z } from 'zod';

const address = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);
const milliseconds = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * The services treasury calls and how long it waits for each: features take these from here,
 * never from one another's configuration. A feature with a deadline of its own for a peer
 * (check 3's long ledger reads) keeps that one itself.
 */
export const peersConfigShape = {
  /** Identity's internal address: members (the maker, the checker, a float deposit's depositor) and tenants not heard of yet. */
  IDENTITY_URL: address('http://127.0.0.1:8091'),
  TREASURY_IDENTITY_TIMEOUT_MS: milliseconds(100, 60_000, 3_000),
  /** The ledger's internal address: account balances, and check 3's reads. */
  LEDGER_URL: address('http://127.0.0.1:8092'),
  TREASURY_LEDGER_READ_TIMEOUT_MS: milliseconds(10, 60_000, 3_000),
  /** How long a float deposit, a withdrawal's hold or its decision waits for the ledger's reply before answering 202. */
  TREASURY_POSTING_REPLY_TIMEOUT_MS: milliseconds(10, 60_000, 3_000),
  /** The gateway's admin listener: internal routes (request-log summaries for analytics) are served there only. */
  GATEWAY_INTERNAL_URL: address('http://127.0.0.1:8081'),
  TREASURY_GATEWAY_TIMEOUT_MS: milliseconds(10, 60_000, 2_000),
};

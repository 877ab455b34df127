import type { Db } from '@wallet/kit';

/** Tokens come back at `ratePerSecond` up to `burst`; a request takes one. */
export interface BucketPolicy {
  ratePerSecond: number;
  burst: number;
}

/** A bucket right after a check. */
export interface BucketState {
  bucketKey: string;
  policy: BucketPolicy;
  /** Whether this check took a token. */
  allowed: boolean;
  /** Tokens left after the check, fractional: refill is continuous. */
  tokens: number;
}

/**
 * Token buckets in the gateway's database, so every instance spends from the same ones.
 * Time is the database's clock: instances whose clocks disagree still refill alike.
 */
export interface BucketStore {
  /** Refills by the time elapsed and takes one token if a whole one is there, atomically. */
  take(bucketKey: string, policy: BucketPolicy): Promise<BucketState>;
  /** The bucket as it stands, nothing taken: `allowed` says whether a take would pass now. */
  peek(bucketKey: string, policy: BucketPolicy): Promise<BucketState>;
  /** Returns a token taken by a request that another bucket then refused. */
  giveBack(bucketKey: string): Promise<void>;
  /** Deletes up to `limit` buckets idle long enough to be full again (a missing bucket is a full one); returns how many. */
  purgeIdle(limit: number): Promise<number>;
}

/** SQL for the tokens `bucket` holds now: what it had, plus the elapsed seconds times the rate, at most the burst. */
function refilled(rate: string, burst: string): string {
  return `LEAST(${burst}, bucket.tokens + GREATEST(0, CAST(EXTRACT(EPOCH FROM now() - bucket.updated_at) AS double precision)) * ${rate})`;
}

/**
 * One statement: the upsert locks the bucket's latest version, so concurrent checks on any
 * instance serialize on the row and never spend the same token twice. A new bucket starts
 * full. When no whole token is there the row is left exactly as it was (refill is a function
 * of time, so nothing needs writing) and the second branch reports what the bucket holds, from
 * the statement's snapshot: close enough for headers, and the decision itself is exact.
 */
const TAKE_SQL = `
  WITH input AS (
    SELECT CAST(? AS text) AS bucket_key, CAST(? AS double precision) AS rate, CAST(? AS double precision) AS burst
  ),
  taken AS (
    INSERT INTO rate_limit_buckets AS bucket (bucket_key, tokens, rate_per_second, burst, updated_at)
    SELECT bucket_key, burst - 1, rate, burst, now() FROM input
    ON CONFLICT (bucket_key) DO UPDATE
      SET tokens = ${refilled('EXCLUDED.rate_per_second', 'EXCLUDED.burst')} - 1,
          rate_per_second = EXCLUDED.rate_per_second,
          burst = EXCLUDED.burst,
          updated_at = now()
      WHERE ${refilled('EXCLUDED.rate_per_second', 'EXCLUDED.burst')} >= 1
    RETURNING bucket.tokens
  )
  SELECT true AS allowed, tokens FROM taken
  UNION ALL
  SELECT false AS allowed, ${refilled('input.rate', 'input.burst')} AS tokens
  FROM rate_limit_buckets AS bucket JOIN input ON input.bucket_key = bucket.bucket_key
  WHERE NOT EXISTS (SELECT 1 FROM taken)
`;

const PEEK_SQL = `
  WITH input AS (
    SELECT CAST(? AS text) AS bucket_key, CAST(? AS double precision) AS rate, CAST(? AS double precision) AS burst
  )
  SELECT ${refilled('input.rate', 'input.burst')} AS tokens
  FROM rate_limit_buckets AS bucket JOIN input ON input.bucket_key = bucket.bucket_key
`;

/** Idle for longer than burst / rate means full again; SKIP LOCKED leaves buckets in use to their checks. */
const PURGE_SQL = `
  DELETE FROM rate_limit_buckets
  WHERE bucket_key IN (
    SELECT bucket_key FROM rate_limit_buckets
    WHERE updated_at < now() - make_interval(secs => burst / rate_per_second)
    LIMIT ?
    FOR UPDATE SKIP LOCKED
  )
`;

interface TakeRow {
  allowed: boolean;
  tokens: number;
}

export function createBucketStore(db: Db): BucketStore {
  return {
    async take(bucketKey, policy) {
      const result = await db.raw<{ rows: TakeRow[] }>(TAKE_SQL, [bucketKey, policy.ratePerSecond, policy.burst]);
      const row = result.rows[0];
      // No row: refused while the bucket was being created by a concurrent first check, so it holds nothing yet for us.
      return { bucketKey, policy, allowed: row?.allowed ?? false, tokens: row ? Number(row.tokens) : 0 };
    },
    async peek(bucketKey, policy) {
      const result = await db.raw<{ rows: Array<{ tokens: number }> }>(PEEK_SQL, [bucketKey, policy.ratePerSecond, policy.burst]);
      const row = result.rows[0];
      const tokens = row ? Number(row.tokens) : policy.burst;
      return { bucketKey, policy, allowed: tokens >= 1, tokens };
    },
    async giveBack(bucketKey) {
      await db.raw('UPDATE rate_limit_buckets SET tokens = LEAST(burst, tokens + 1) WHERE bucket_key = ?', [bucketKey]);
    },
    async purgeIdle(limit) {
      const result = await db.raw<{ rowCount: number | null }>(PURGE_SQL, [limit]);
      return result.rowCount ?? 0;
    },
  };
}

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Knex } from 'knex';
import { type Db, prepared, type SqlStatement, type Tx } from '../db';
import { microBatch, STATEMENT_BATCH_CONCURRENCY } from '../micro-batch';
import { AppError, RetryLaterError } from '../errors';
import { IDEMPOTENCY_TABLE } from './table';

/** Keys are remembered at least this long (the API promise); a shorter retention is refused. */
export const MIN_IDEMPOTENCY_TTL_HOURS = 24;
/**
 * How long a claim stays locked without renewal. A live holder renews it every third of this,
 * so only a crashed holder's lock lapses; retries meanwhile get 409 and Retry-After: 1.
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 15_000;
/** A holder stops renewing after this long: a handler stuck for good must not block its key until expiry. */
export const DEFAULT_MAX_HOLD_MS = 5 * 60_000;
/** Seconds a client is told to wait before retrying a key in use. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

export interface IdempotencyScope {
  tenantId: string;
  environment: 'test' | 'live';
}

/** An answer exactly as sent: replayed byte for byte. Header names are lower case. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Proof that this attempt holds the key: only the holder of `lockToken` can complete or release it. */
export interface IdempotencyClaim {
  readonly scope: IdempotencyScope;
  readonly key: string;
  readonly fingerprint: string;
  readonly lockToken: string;
  /** True when the key was held by an attempt whose lock had lapsed (a crashed holder). */
  readonly takenOver: boolean;
  /**
   * Set on a claim not yet written (a route that claims at its first write): how long the key
   * is kept once its first statement writes it.
   */
  readonly ttlSeconds?: number;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

export interface ClaimTiming {
  ttlHours?: number;
  lockTimeoutMs?: number;
}

let defaultTtlHours = MIN_IDEMPOTENCY_TTL_HOURS;

/** How long keys of routes that name no `ttlHours` are kept: a service sets it at start from its configuration. */
export function useIdempotencyTtlHours(ttlHours: number): void {
  defaultTtlHours = checkedTiming({ ttlHours }).ttlHours;
}

/** Refuses settings that would break the retention promise or make locks meaningless. */
export function checkedTiming(timing: ClaimTiming): { ttlHours: number; lockTimeoutMs: number } {
  const ttlHours = timing.ttlHours ?? defaultTtlHours;
  const lockTimeoutMs = timing.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  if (!Number.isFinite(ttlHours) || ttlHours < MIN_IDEMPOTENCY_TTL_HOURS) {
    throw new Error(`idempotency ttlHours must be at least ${MIN_IDEMPOTENCY_TTL_HOURS}, got ${ttlHours}`);
  }
  if (!Number.isInteger(lockTimeoutMs) || lockTimeoutMs < 100) {
    throw new Error(`idempotency lockTimeoutMs must be an integer of at least 100, got ${lockTimeoutMs}`);
  }
  return { ttlHours, lockTimeoutMs };
}

/**
 * 2xx and business 4xx answers are remembered and replayed (a declined transfer stays declined
 * for its key). Not remembered, so a retry runs again, because nothing was changed and the
 * outcome may differ next time: 5xx (the client is told to retry), 401/403 (credentials or
 * permissions, which the caller may fix), 408 and 429 (timing).
 */
export function isRememberedStatus(status: number): boolean {
  if (status < 200 || status >= 500) return false;
  return status !== 401 && status !== 403 && status !== 408 && status !== 429;
}

/** 409 for a key another attempt is working on right now. */
export class IdempotencyInProgressError extends RetryLaterError {
  constructor(message = 'A request with this Idempotency-Key is in progress; retry shortly') {
    super('IDEMPOTENCY_REQUEST_IN_PROGRESS', message, IN_PROGRESS_RETRY_AFTER_SECONDS);
  }
}

export function idempotencyKeyReusedError(): AppError {
  return new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used for a different request (another body, path or caller)',
  );
}

const storedHeadersSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

interface KeyRow {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: unknown;
  response_body: Buffer | null;
  forgotten: boolean;
  lock_lapsed: boolean;
}

export const SECONDS_PER_HOUR = 3600;

// All times are the database's: every instance of a service agrees on them.
const INSERT_SQL = `
  INSERT INTO ${IDEMPOTENCY_TABLE} (tenant_id, environment, idempotency_key, fingerprint, status, lock_token, locked_until, created_at, expires_at)
  VALUES (?, ?, ?, ?, 'in_progress', ?, now() + make_interval(secs => CAST(? AS double precision)), now(), now() + make_interval(secs => CAST(? AS double precision)))
  ON CONFLICT (tenant_id, environment, idempotency_key) DO NOTHING
  RETURNING lock_token`;

// "forgotten": past retention and not held by a live attempt; it counts as absent.
const FORGOTTEN = `(expires_at <= now() AND (status = 'completed' OR locked_until <= now()))`;

const SELECT_SQL = `
  SELECT fingerprint, status, response_status, response_headers, response_body,
         ${FORGOTTEN} AS forgotten,
         (status = 'in_progress' AND locked_until <= now()) AS lock_lapsed
  FROM ${IDEMPOTENCY_TABLE}
  WHERE tenant_id = ? AND environment = ? AND idempotency_key = ?`;

// One statement decides the takeover: two retries racing for a lapsed lock both reach this
// UPDATE, the second waits for the first's row lock and then re-reads a lock that is live again,
// so it matches nothing. A forgotten row is reset as new; a lapsed one keeps its retention.
const TAKEOVER_SQL = `
  UPDATE ${IDEMPOTENCY_TABLE}
  SET fingerprint = CAST(? AS text), status = 'in_progress', lock_token = ?,
      locked_until = now() + make_interval(secs => CAST(? AS double precision)),
      response_status = NULL, response_headers = NULL, response_body = NULL, completed_at = NULL,
      created_at = CASE WHEN ${FORGOTTEN} THEN now() ELSE created_at END,
      expires_at = CASE WHEN ${FORGOTTEN} THEN now() + make_interval(secs => CAST(? AS double precision)) ELSE expires_at END
  WHERE tenant_id = ? AND environment = ? AND idempotency_key = ?
    AND (${FORGOTTEN} OR (status = 'in_progress' AND locked_until <= now() AND fingerprint = CAST(? AS text)))
  RETURNING lock_token`;

// The first insert of concurrent claims, many rows in one statement and one commit.
const INSERT_MANY_SQL = `
  INSERT INTO ${IDEMPOTENCY_TABLE} (tenant_id, environment, idempotency_key, fingerprint, status, lock_token, locked_until, created_at, expires_at)
  SELECT u.tenant_id, u.environment, u.idempotency_key, u.fingerprint, 'in_progress', u.lock_token,
         now() + make_interval(secs => u.lock_seconds), now(), now() + make_interval(secs => u.ttl_seconds)
  FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS uuid[]), CAST(? AS float8[]), CAST(? AS float8[]))
    AS u(tenant_id, environment, idempotency_key, fingerprint, lock_token, lock_seconds, ttl_seconds)
  ON CONFLICT (tenant_id, environment, idempotency_key) DO NOTHING
  RETURNING lock_token`;

interface ClaimInsert {
  scope: IdempotencyScope;
  key: string;
  fingerprint: string;
  lockToken: string;
  lockSeconds: number;
  ttlSeconds: number;
}

const claimInserters = new WeakMap<Db, (insert: ClaimInsert) => Promise<boolean>>();

/** Per pool: the claims that arrive while earlier ones are being inserted are inserted together. */
function claimInserterOf(db: Db): (insert: ClaimInsert) => Promise<boolean> {
  let inserter = claimInserters.get(db);
  if (!inserter) {
    inserter = microBatch<ClaimInsert, boolean>(
      async (inserts) => {
        const result = await prepared<{ rows: Array<{ lock_token: string }> }>(db, INSERT_MANY_SQL, [
          inserts.map((each) => each.scope.tenantId),
          inserts.map((each) => each.scope.environment),
          inserts.map((each) => each.key),
          inserts.map((each) => each.fingerprint),
          inserts.map((each) => each.lockToken),
          inserts.map((each) => each.lockSeconds),
          inserts.map((each) => each.ttlSeconds),
        ] as unknown as Knex.RawBinding[]);
        // A key twice in one batch: the first row wins, the second finds it (DO NOTHING), as two statements would.
        const inserted = new Set(result.rows.map((row) => row.lock_token));
        return inserts.map((each) => inserted.has(each.lockToken));
      },
      { concurrency: STATEMENT_BATCH_CONCURRENCY },
    );
    claimInserters.set(db, inserter);
  }
  return inserter;
}

/** Bounds the loop when the row keeps changing hands under us; the client then retries. */
const CLAIM_ATTEMPTS = 4;

function keyWhere(claim: { scope: IdempotencyScope; key: string }): [string, string, string] {
  return [claim.scope.tenantId, claim.scope.environment, claim.key];
}

function storedResponseOf(row: KeyRow): StoredResponse {
  if (row.response_status === null || row.response_body === null) throw new Error('completed idempotency row without a stored response');
  return { status: row.response_status, headers: storedHeadersSchema.parse(row.response_headers), body: row.response_body };
}

/**
 * Claims `key` for one attempt, or says what the key already holds. Each step is one
 * autocommit statement: no transaction stays open across the work the claim guards, and
 * concurrent attempts never wait on one another's row lock except in a takeover race.
 */
export async function claimIdempotencyKey(
  db: Db,
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  timing: ClaimTiming = {},
): Promise<ClaimOutcome> {
  const { ttlHours, lockTimeoutMs } = checkedTiming(timing);
  const lockSeconds = lockTimeoutMs / 1000;
  const ttlSeconds = ttlHours * SECONDS_PER_HOUR;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
    const lockToken = randomUUID();
    const claimed =
      attempt === 0
        ? await claimInserterOf(db)({ scope, key, fingerprint, lockToken, lockSeconds, ttlSeconds })
        : (
            await prepared<{ rows: Array<{ lock_token: string }> }>(db, INSERT_SQL, [
              scope.tenantId,
              scope.environment,
              key,
              fingerprint,
              lockToken,
              lockSeconds,
              ttlSeconds,
            ])
          ).rows.length === 1;
    if (claimed) return { kind: 'claimed', claim: { scope, key, fingerprint, lockToken, takenOver: false } };

    const found = await prepared<{ rows: KeyRow[] }>(db, SELECT_SQL, [scope.tenantId, scope.environment, key]);
    const row = found.rows[0];
    // Released between our insert and our read: try the insert again.
    if (!row) continue;
    if (row.forgotten || (row.lock_lapsed && row.fingerprint === fingerprint)) {
      const taken = await prepared<{ rows: Array<{ lock_token: string }> }>(db, TAKEOVER_SQL, [
        fingerprint,
        lockToken,
        lockSeconds,
        ttlSeconds,
        scope.tenantId,
        scope.environment,
        key,
        fingerprint,
      ]);
      if (taken.rows.length === 1) return { kind: 'claimed', claim: { scope, key, fingerprint, lockToken, takenOver: !row.forgotten } };
      // Another retry won the takeover: read again to see what it holds now.
      continue;
    }
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status === 'completed') return { kind: 'replay', response: storedResponseOf(row) };
    return { kind: 'in_progress' };
  }
  return { kind: 'in_progress' };
}

const COMPLETE_SQL = `
  UPDATE ${IDEMPOTENCY_TABLE}
  SET status = 'completed', response_status = ?, response_headers = CAST(? AS jsonb), response_body = ?,
      locked_until = NULL, completed_at = now()
  WHERE tenant_id = ? AND environment = ? AND idempotency_key = ? AND lock_token = ?
  RETURNING lock_token`;

function responseBindings(response: StoredResponse): [number, string, Buffer] {
  if (!Number.isInteger(response.status) || response.status < 100 || response.status > 599)
    throw new Error(`not an HTTP status: ${response.status}`);
  return [response.status, JSON.stringify(response.headers), response.body];
}

/**
 * completeInTransaction as one statement to embed in the caller's own WITH statement: it
 * returns a row only while this attempt holds the key, so the caller makes its writes depend
 * on that row (INSERT ... SELECT ... FROM <this part>) and they happen with the answer or not
 * at all.
 */
export function completionStatement(claim: IdempotencyClaim, response: StoredResponse): SqlStatement {
  return { sql: COMPLETE_SQL, bindings: [...responseBindings(response), ...keyWhere(claim), claim.lockToken] };
}

const FINAL_ANSWER_SQL = `
  UPDATE ${IDEMPOTENCY_TABLE}
  SET status = 'completed', response_status = ?, response_headers = CAST(? AS jsonb), response_body = ?,
      locked_until = NULL, completed_at = COALESCE(completed_at, now())
  WHERE tenant_id = ? AND environment = ? AND idempotency_key = ? AND lock_token = ?
  RETURNING lock_token`;

/**
 * storeFinalResponse (replacing a completed answer) as one statement to embed in the caller's
 * own WITH statement; it returns a row when it stored the answer (this attempt holds the key).
 */
export function finalAnswerStatement(claim: IdempotencyClaim, response: StoredResponse): SqlStatement {
  return { sql: FINAL_ANSWER_SQL, bindings: [...responseBindings(response), ...keyWhere(claim), claim.lockToken] };
}

/** A key's final answer, to store with others in one statement (finalAnswersStatement). */
export interface FinalAnswer {
  claim: IdempotencyClaim;
  response: StoredResponse;
}

/** The column arrays both batched answer statements start with: each response, then its key. */
function answerColumns(answers: readonly FinalAnswer[]): unknown[][] {
  const responses = answers.map((answer) => responseBindings(answer.response));
  return [
    responses.map(([status]) => status),
    responses.map(([, headers]) => headers),
    responses.map(([, , body]) => body),
    answers.map((answer) => answer.claim.scope.tenantId),
    answers.map((answer) => answer.claim.scope.environment),
    answers.map((answer) => answer.claim.key),
  ];
}

/**
 * finalAnswerStatement for many keys as one statement part: it returns the lock_token of each key
 * it stored an answer for (the attempt still holds that key), so each caller learns its own.
 */
export function finalAnswersStatement(answers: readonly FinalAnswer[]): SqlStatement {
  return answersUpdate(answers, 'COALESCE(k.completed_at, now())');
}

/**
 * completionStatement for many keys as one statement part (keys claimed before, each held by
 * its attempt): it returns the lock_token of each key it completed, for the caller's writes to
 * join on.
 */
export function completionsStatement(answers: readonly FinalAnswer[]): SqlStatement {
  return answersUpdate(answers, 'now()');
}

function answersUpdate(answers: readonly FinalAnswer[], completedAt: string): SqlStatement {
  return {
    sql: `
  UPDATE ${IDEMPOTENCY_TABLE} k
  SET status = 'completed', response_status = a.response_status, response_headers = a.response_headers, response_body = a.response_body,
      locked_until = NULL, completed_at = ${completedAt}
  FROM unnest(CAST(? AS integer[]), CAST(? AS jsonb[]), CAST(? AS bytea[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS uuid[]))
    AS a(response_status, response_headers, response_body, tenant_id, environment, idempotency_key, lock_token)
  WHERE k.tenant_id = a.tenant_id AND k.environment = a.environment AND k.idempotency_key = a.idempotency_key AND k.lock_token = a.lock_token
  RETURNING k.lock_token`,
    bindings: [...answerColumns(answers), answers.map((answer) => answer.claim.lockToken)] as unknown as readonly Knex.RawBinding[],
  };
}

/**
 * For a route that claims its key at its first write (the middleware's `claimAtFirstWrite`):
 * the keys and their first answers written as one statement part, each only where no row of its
 * key exists (ON CONFLICT DO NOTHING). It returns the lock_token of each key it wrote, for the
 * caller's writes to join on: a key another attempt wrote first yields no row, and nothing of
 * that attempt is written. A key twice in one statement is written once, as two statements
 * would.
 */
export function firstAnswersStatement(answers: readonly FinalAnswer[]): SqlStatement {
  return {
    sql: `
  INSERT INTO ${IDEMPOTENCY_TABLE} (tenant_id, environment, idempotency_key, fingerprint, status, lock_token,
                                    response_status, response_headers, response_body, created_at, completed_at, expires_at)
  SELECT a.tenant_id, a.environment, a.idempotency_key, a.fingerprint, 'completed', a.lock_token,
         a.response_status, a.response_headers, a.response_body, now(), now(), now() + make_interval(secs => a.ttl_seconds)
  FROM unnest(CAST(? AS integer[]), CAST(? AS jsonb[]), CAST(? AS bytea[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
              CAST(? AS text[]), CAST(? AS uuid[]), CAST(? AS float8[]))
    AS a(response_status, response_headers, response_body, tenant_id, environment, idempotency_key, fingerprint, lock_token, ttl_seconds)
  ON CONFLICT (tenant_id, environment, idempotency_key) DO NOTHING
  RETURNING lock_token`,
    bindings: [
      ...answerColumns(answers),
      answers.map((answer) => answer.claim.fingerprint),
      answers.map((answer) => answer.claim.lockToken),
      answers.map((answer) => answer.claim.ttlSeconds ?? MIN_IDEMPOTENCY_TTL_HOURS * SECONDS_PER_HOUR),
    ] as unknown as readonly Knex.RawBinding[],
  };
}

/**
 * Marks the key completed with `response` inside the caller's business transaction, so the
 * money movement, its outbox message and the remembered answer commit together or not at all.
 * When another attempt took the key over (our lock had lapsed), this throws 409 and the caller's
 * transaction rolls back: the key's effect then happens once, in the attempt that holds it.
 */
export async function completeInTransaction(tx: Tx, claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
  const updated = await prepared<{ rows: unknown[] }>(tx, COMPLETE_SQL, [
    ...responseBindings(response),
    ...keyWhere(claim),
    claim.lockToken,
  ]);
  if (updated.rows.length !== 1) {
    throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
  }
}

/**
 * Remembers the answer actually sent, after the work. On a row still in progress it stores the
 * answer; on a row the work already completed in its transaction it replaces the stored answer
 * only when `replaceCompleted` (a 2xx sent after commit, such as the 201 the ledger confirmed in
 * time where the transaction stored a 202 pending), so an error after a commit never hides
 * that the work took effect. Returns false when nothing was written.
 */
export async function storeFinalResponse(
  db: Db | Tx,
  claim: IdempotencyClaim,
  response: StoredResponse,
  options: { replaceCompleted: boolean },
): Promise<boolean> {
  const result = await db.raw<{ rowCount: number | null }>(
    `UPDATE ${IDEMPOTENCY_TABLE}
     SET status = 'completed', response_status = ?, response_headers = CAST(? AS jsonb), response_body = ?,
         locked_until = NULL, completed_at = COALESCE(completed_at, now())
     WHERE tenant_id = ? AND environment = ? AND idempotency_key = ? AND lock_token = ?
       AND (status = 'in_progress' OR CAST(? AS boolean))`,
    [...responseBindings(response), ...keyWhere(claim), claim.lockToken, options.replaceCompleted],
  );
  return (result.rowCount ?? 0) === 1;
}

/**
 * Gives the key back so a retry runs again: after a 5xx, or work that failed before answering.
 * A completed row is never released: if the work committed, its answer stays the key's answer.
 */
export async function releaseClaim(db: Db, claim: IdempotencyClaim): Promise<boolean> {
  const result = await db.raw<{ rowCount: number | null }>(
    `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE tenant_id = ? AND environment = ? AND idempotency_key = ? AND lock_token = ? AND status = 'in_progress'`,
    [...keyWhere(claim), claim.lockToken],
  );
  return (result.rowCount ?? 0) === 1;
}

/** Pushes the lock forward; false when the claim is no longer held in progress (completed, released or taken over). */
export async function renewClaim(db: Db, claim: IdempotencyClaim, lockTimeoutMs: number): Promise<boolean> {
  const result = await db.raw<{ rowCount: number | null }>(
    `UPDATE ${IDEMPOTENCY_TABLE} SET locked_until = now() + make_interval(secs => CAST(? AS double precision))
     WHERE tenant_id = ? AND environment = ? AND idempotency_key = ? AND lock_token = ? AND status = 'in_progress'`,
    [lockTimeoutMs / 1000, ...keyWhere(claim), claim.lockToken],
  );
  return (result.rowCount ?? 0) === 1;
}

export interface ClaimHeartbeat {
  stop(): void;
}

/**
 * Renews the claim's lock while its holder works, so a slow but live holder is never taken over
 * and only a crashed one's lock lapses. Stops by itself once the claim is no longer held, and
 * after `maxHoldMs`. A failed renewal is reported and retried on the next beat.
 */
export function startClaimHeartbeat(
  db: Db,
  claim: IdempotencyClaim,
  options: { lockTimeoutMs: number; maxHoldMs?: number; onError?: (error: unknown) => void },
): ClaimHeartbeat {
  const startedAt = Date.now();
  const maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
  let stopped = false;
  let renewing = false;
  const timer = setInterval(
    () => {
      if (stopped || renewing) return;
      if (Date.now() - startedAt >= maxHoldMs) {
        stop();
        return;
      }
      renewing = true;
      renewClaim(db, claim, options.lockTimeoutMs)
        .then((held) => {
          if (!held) stop();
        })
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(Math.floor(options.lockTimeoutMs / 3), 10),
  );
  timer.unref();
  function stop(): void {
    stopped = true;
    clearInterval(timer);
  }
  return { stop };
}

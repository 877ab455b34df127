import { currentContext } from '../context';
import type { Db, Tx } from '../db';
import { AppError } from '../errors';
import { createLogger, type Logger } from '../logger';
import { parseIdempotencyKey } from './fingerprint';
import { errorResponse } from './response';
import {
  checkedTiming,
  claimIdempotencyKey,
  type ClaimTiming,
  completeInTransaction,
  type IdempotencyClaim,
  IdempotencyInProgressError,
  idempotencyKeyReusedError,
  type IdempotencyScope,
  isRememberedStatus,
  releaseClaim,
  startClaimHeartbeat,
  storeFinalResponse,
  type StoredResponse,
} from './store';

export interface WithIdempotencyOptions extends ClaimTiming {
  maxHoldMs?: number;
  /** Written into a remembered error body; defaults to the request context's correlation id. */
  correlationId?: string;
  logger?: Logger;
}

export interface IdempotentResult {
  response: StoredResponse;
  /** True when `response` is the key's remembered answer and `work` did not run. */
  replayed: boolean;
}

let fallbackLogger: Logger | undefined;
/** Used when a caller passes none: a failure to remember or release a key is never silent. */
export function idempotencyLogger(logger: Logger | undefined): Logger {
  if (logger) return logger;
  fallbackLogger ??= createLogger({ service: 'idempotency' });
  return fallbackLogger;
}

/** Answers the key's own protocol produces are about this attempt, never the key's answer. */
export function isRememberedError(error: AppError): boolean {
  return isRememberedStatus(error.status) && !error.code.startsWith('IDEMPOTENCY_');
}

/** An answer `work` returned that must not be remembered (5xx): its transaction is rolled back. */
class NotRemembered extends Error {
  constructor(readonly response: StoredResponse) {
    super('answer not remembered');
  }
}

/**
 * Runs `work` at most once in effect per (tenant, environment, key): the key is claimed in a
 * short statement of its own, then `work` runs in ONE transaction that also marks the key
 * completed with the answer `work` returns. The business rows, their outbox messages and the
 * remembered answer commit together, so there is no moment at which money moved but the key
 * would let a retry move it again.
 *
 * - same key, same fingerprint, answered: `{ response, replayed: true }` without running `work`;
 * - same key, another fingerprint: throws 422 IDEMPOTENCY_KEY_REUSED;
 * - same key held by a live attempt: throws 409 IDEMPOTENCY_REQUEST_IN_PROGRESS (retry after 1 s);
 * - `work` returns a 5xx: rolled back and the key released, so a retry runs again;
 * - `work` throws a business AppError (4xx): rolled back, and that error body is remembered as
 *   the key's answer, like the middleware remembers what the error middleware sent;
 * - `work` throws anything else: rolled back, key released, error rethrown.
 */
export async function withIdempotency(
  db: Db,
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  work: (tx: Tx, claim: IdempotencyClaim) => Promise<StoredResponse>,
  options: WithIdempotencyOptions = {},
): Promise<IdempotentResult> {
  const timing = checkedTiming(options);
  const logger = idempotencyLogger(options.logger);
  if (parseIdempotencyKey(key) === undefined) throw new AppError('IDEMPOTENCY_KEY_REQUIRED', 'An Idempotency-Key header is required');

  const outcome = await claimIdempotencyKey(db, scope, key, fingerprint, timing);
  if (outcome.kind === 'replay') return { response: outcome.response, replayed: true };
  if (outcome.kind === 'mismatch') throw idempotencyKeyReusedError();
  if (outcome.kind === 'in_progress') throw new IdempotencyInProgressError();

  const { claim } = outcome;
  const heartbeat = startClaimHeartbeat(db, claim, {
    lockTimeoutMs: timing.lockTimeoutMs,
    maxHoldMs: options.maxHoldMs,
    onError: (error) => logger.warn({ err: error }, 'idempotency lock renewal failed'),
  });
  try {
    const response = await db.transaction(async (tx) => {
      const answer = await work(tx, claim);
      if (!isRememberedStatus(answer.status)) throw new NotRemembered(answer);
      await completeInTransaction(tx, claim, answer);
      return answer;
    });
    return { response, replayed: false };
  } catch (error) {
    if (error instanceof NotRemembered) {
      await releaseQuietly(db, claim, logger);
      return { response: error.response, replayed: false };
    }
    if (error instanceof AppError && isRememberedError(error)) {
      const correlationId = options.correlationId ?? currentContext()?.correlationId ?? 'none';
      await rememberOrRelease(db, claim, errorResponse(error, correlationId), logger);
    } else {
      await releaseQuietly(db, claim, logger);
    }
    throw error;
  } finally {
    heartbeat.stop();
  }
}

/** Release after a failure; the failure being reported matters more than the release's own. */
export async function releaseQuietly(db: Db, claim: IdempotencyClaim, logger: Logger): Promise<void> {
  try {
    await releaseClaim(db, claim);
  } catch (error) {
    // The lock lapses on its own (no more renewals): a retry takes the key over then.
    logger.error({ err: error, idempotencyKey: claim.key }, 'idempotency key release failed');
  }
}

async function rememberOrRelease(db: Db, claim: IdempotencyClaim, response: StoredResponse, logger: Logger): Promise<void> {
  try {
    await storeFinalResponse(db, claim, response, { replaceCompleted: false });
  } catch (error) {
    logger.error({ err: error, idempotencyKey: claim.key }, 'idempotency answer could not be stored; releasing the key');
    await releaseQuietly(db, claim, logger);
  }
}

import type { Db, Tx } from '@wallet/kit';

/** The numbers of the policy, as the statement takes them (docs/decisions/login-throttling.md). */
export interface LoginThrottlePolicy {
  /** The failure that sets the first lock; the ones before it are free. */
  lockAfterFailures: number;
  firstLockSeconds: number;
  maxLockSeconds: number;
  /** A count whose last failure is older than this starts again from zero. */
  failureMemorySeconds: number;
}

export interface CountedAttempt {
  /** The address was locked: the attempt was neither counted nor may it check a password. */
  refused: boolean;
  failures: number;
  lockedUntil: Date | null;
  /** Whole seconds until the lock ends, from the database's clock; 0 when not locked. */
  lockSecondsLeft: number;
}

interface CountedAttemptRow {
  last_attempt_refused: boolean;
  failures: number;
  locked_until: Date | null;
  lock_seconds_left: number;
}

/*
 * Fragments of one statement, evaluated on the row as it was before the attempt. The address is
 * lower-cased by PostgreSQL, as the member lookup does, so that no spelling of it the lookup would
 * match counts apart from the others.
 */
const EMAIL_HASH = `encode(sha256(convert_to(lower(:email), 'UTF8')), 'hex')`;
const LOCKED = 'coalesce(t.locked_until > now(), false)';
const COUNTED = 'CASE WHEN t.last_failure_at <= now() - make_interval(secs => :failureMemorySeconds) THEN 1 ELSE t.failures + 1 END';

/** The lock a count sets: none below the threshold, then the first lock doubled per failure past it, capped. */
function lockFor(failures: string): string {
  // The exponent is bounded so that a count kept alive for weeks cannot overflow the power.
  const seconds = `least(:firstLockSeconds * power(2, least(${failures} - :lockAfterFailures, 30)), :maxLockSeconds)`;
  return `CASE WHEN ${failures} >= :lockAfterFailures THEN now() + make_interval(secs => ${seconds}) END`;
}

const COUNT_ATTEMPT_SQL = `
  INSERT INTO login_throttles AS t (email_hash, failures, last_failure_at, locked_until)
  VALUES (${EMAIL_HASH}, 1, now(), ${lockFor('1')})
  ON CONFLICT (email_hash) DO UPDATE SET
    last_attempt_refused = ${LOCKED},
    failures = CASE WHEN ${LOCKED} THEN t.failures ELSE ${COUNTED} END,
    last_failure_at = CASE WHEN ${LOCKED} THEN t.last_failure_at ELSE now() END,
    locked_until = CASE WHEN ${LOCKED} THEN t.locked_until ELSE ${lockFor(COUNTED)} END
  RETURNING last_attempt_refused, failures, locked_until,
            CAST(greatest(0, ceil(extract(epoch FROM locked_until - now()))) AS integer) AS lock_seconds_left`;

/**
 * Refuses the attempt while the address is locked, else counts it as a failure before its
 * password is checked, setting the lock when the count reaches the threshold. One statement in
 * its own transaction: concurrent attempts on one address queue on its row, so no more than
 * the threshold's number of them are let through to a password check.
 */
export async function countLoginAttempt(db: Db, email: string, policy: LoginThrottlePolicy): Promise<CountedAttempt> {
  const result = await db.raw(COUNT_ATTEMPT_SQL, { email, ...policy });
  const row = (result.rows as CountedAttemptRow[])[0];
  if (!row) throw new Error('login_throttles upsert returned no row');
  const { last_attempt_refused: refused, failures, locked_until: lockedUntil, lock_seconds_left: lockSecondsLeft } = row;
  return { refused, failures, lockedUntil, lockSecondsLeft };
}

/** A right password: the address starts again from zero. */
export async function forgetLoginFailures(db: Db | Tx, email: string): Promise<void> {
  await db.raw(`DELETE FROM login_throttles WHERE email_hash = ${EMAIL_HASH}`, { email });
}

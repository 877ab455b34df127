import { AppError, type Db, type Logger, RetryLaterError, type Tx } from '@wallet/kit';
import type { LoginLockNotices } from './login-lock-notices';
import { countLoginAttempt, forgetLoginFailures, type LoginThrottlePolicy } from './login-throttle-store';

export type { LoginThrottlePolicy } from './login-throttle-store';

export interface LoginThrottleDeps {
  db: Db;
  policy: LoginThrottlePolicy;
  notices: LoginLockNotices;
  logger: Logger;
}

/** An attempt let through to its password check. */
export interface AdmittedAttempt {
  email: string;
  failures: number;
  lockedUntil: Date | null;
  /** Its count set the first lock since the address last started from zero: if it fails, its members are told. */
  startsLock: boolean;
}

/** Refuses a policy under which a lock could outlast the memory of the failures that set it. */
export function checkedLoginThrottlePolicy(policy: LoginThrottlePolicy): LoginThrottlePolicy {
  if (policy.failureMemorySeconds <= policy.maxLockSeconds) {
    // Else every capped lock would end on a count started from zero: the free attempts again, each time.
    throw new Error('IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS must be longer than IDENTITY_LOGIN_LOCK_MAX_SECONDS');
  }
  if (policy.firstLockSeconds > policy.maxLockSeconds) {
    throw new Error('IDENTITY_LOGIN_LOCK_FIRST_SECONDS may not exceed IDENTITY_LOGIN_LOCK_MAX_SECONDS');
  }
  return policy;
}

function temporarilyLocked(retryAfterSeconds: number): AppError {
  // The same for every address, member or not: the lock says nothing about who is a member.
  const message = 'Too many failed logins for this email; try again later';
  return new RetryLaterError('LOGIN_TEMPORARILY_LOCKED', message, retryAfterSeconds, { retryAfterSeconds });
}

/**
 * Per-address soft lockout of logins (docs/decisions/login-throttling.md): the gateway limits each
 * client address, this limits each login address however many client addresses try it.
 */
export class LoginThrottle {
  private readonly notifying = new Set<Promise<void>>();

  constructor(private readonly deps: LoginThrottleDeps) {}

  /** Before the password is checked: refuses the attempt while the address is locked, else counts it. */
  async admit(email: string): Promise<AdmittedAttempt> {
    const counted = await countLoginAttempt(this.deps.db, email, this.deps.policy);
    if (counted.refused) throw temporarilyLocked(Math.max(1, counted.lockSecondsLeft));
    const startsLock = counted.failures === this.deps.policy.lockAfterFailures;
    return { email, failures: counted.failures, lockedUntil: counted.lockedUntil, startsLock };
  }

  /**
   * The password did not match. The members are told after the answer, not before it: the answer
   * to the attempt that locks an address is then the same, in content and in time, for a member
   * and for an address nobody has.
   */
  failed(attempt: AdmittedAttempt): void {
    if (!attempt.startsLock || !attempt.lockedUntil) return;
    const lock = { email: attempt.email, failures: attempt.failures, lockedUntil: attempt.lockedUntil };
    const notice = this.deps.notices.lockStarted(lock).catch((error: unknown) => {
      this.deps.logger.error({ err: error }, 'members of a locked login address could not be told');
    });
    this.notifying.add(notice);
    void notice.finally(() => this.notifying.delete(notice));
  }

  /** A right password, in the caller's transaction when it has one: the address starts again from zero. */
  succeeded(db: Db | Tx, email: string): Promise<void> {
    return forgetLoginFailures(db, email);
  }

  /** Waits for the notices under way (each bounded by the mailer's timeouts). */
  async stop(): Promise<void> {
    await Promise.all(this.notifying);
  }
}

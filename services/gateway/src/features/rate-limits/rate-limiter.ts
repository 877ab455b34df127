import { isIPv4, isIPv6 } from 'node:net';
import type { Surface } from '@wallet/contracts';
import type { Logger, ServiceMetrics } from '@wallet/kit';
import type { Principal } from '../auth/principal';
import type { BucketPolicy, BucketState, BucketStore } from './bucket-store';

/** Each bucket's policy; null turns that bucket off. */
export interface RateLimitPolicies {
  /** Per API key, or per team member for dashboard sessions. */
  credential: BucketPolicy | null;
  /** Per tenant, both environments together. */
  tenant: BucketPolicy | null;
  /** Per client address: public routes and failed authentications. */
  address: BucketPolicy | null;
}

/** The three buckets, as `gateway_rate_limit_rejections_total` labels them. */
export type RateLimitBucket = 'credential' | 'tenant' | 'address';

/** What the checks of one request came to, told by the tightest bucket. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket that told it. */
  bucket: RateLimitBucket;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** Whole seconds until the next token, at least 1; what a refused client should wait. */
  retryAfterSeconds: number;
}

/**
 * The gateway's three buckets, checked around authentication. A null decision means no bucket
 * applied (a system-key request, or every applicable bucket turned off).
 */
export interface RateLimiter {
  /**
   * Before credentials are looked at. Public routes spend from the address bucket; other
   * routes only look at it, so an address that used its allowance up on failed attempts gets
   * no further answer about credentials, while callers whose credentials work never spend it.
   */
  beforeAuthentication(surface: Surface, remoteAddress: string | undefined): Promise<RateLimitDecision | null>;
  /** A credential did not check out: the attempt is charged to the address. */
  afterFailedAuthentication(remoteAddress: string | undefined): Promise<RateLimitDecision | null>;
  /**
   * The credential's and the tenant's buckets; a refusal by one gives back what the other took.
   * The address bucket is looked at in the same round trip: an address that spent its allowance
   * on failures (at any instance) gets no answer even with a working credential.
   */
  afterAuthentication(principal: Principal, remoteAddress: string | undefined): Promise<RateLimitDecision | null>;
  /** Deletes up to `limit` idle buckets; returns how many. */
  purgeIdle(limit: number): Promise<number>;
}

/**
 * `::ffff:10.0.0.1` is how a dual-stack socket shows an IPv4 peer. An IPv6 client usually
 * holds a whole /64, so it is one bucket: per address it could mint new buckets at will.
 */
export function addressBucketKey(remoteAddress: string | undefined): string | null {
  if (!remoteAddress) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress)?.[1];
  const address = mapped ?? remoteAddress;
  if (isIPv4(address)) return `ip:${address}`;
  if (!isIPv6(address)) return null;
  return `ip6:${ipv6Prefix64(address)}`;
}

/** The first four groups of an IPv6 address, written out in full. */
function ipv6Prefix64(address: string): string {
  const withoutZone = address.split('%')[0] ?? address;
  const [head = '', tail] = withoutZone.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => '0'), ...tailGroups];
  return groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().padStart(4, '0'))
    .join(':');
}

function credentialBucketKey(principal: Principal): string | null {
  if (principal.keyId) return `key:${principal.keyId}`;
  // A session has no key: its team member is the credential.
  if (principal.actor && principal.tenantId) return `member:${principal.tenantId}:${principal.actor.id}`;
  return null;
}

function decisionOf(state: BucketState, bucket: RateLimitBucket): RateLimitDecision {
  const { ratePerSecond, burst } = state.policy;
  const tokens = Math.max(0, Math.min(burst, state.tokens));
  return {
    allowed: state.allowed,
    bucket,
    limit: Math.floor(burst),
    // A refused request saw less than one token, whatever the snapshot says.
    remaining: state.allowed ? Math.floor(tokens) : 0,
    resetSeconds: Math.ceil((burst - tokens) / ratePerSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / ratePerSecond)),
  };
}

/** A refusal first (the longest wait), else the fewest tokens left, else the longest until full. */
function tightest(decisions: readonly RateLimitDecision[]): RateLimitDecision | null {
  let chosen: RateLimitDecision | null = null;
  for (const decision of decisions) {
    if (!chosen) {
      chosen = decision;
      continue;
    }
    if (decision.allowed !== chosen.allowed) {
      if (!decision.allowed) chosen = decision;
      continue;
    }
    if (!decision.allowed) {
      if (decision.retryAfterSeconds > chosen.retryAfterSeconds) chosen = decision;
      continue;
    }
    if (decision.remaining < chosen.remaining || (decision.remaining === chosen.remaining && decision.resetSeconds > chosen.resetSeconds))
      chosen = decision;
  }
  return chosen;
}

/** Addresses remembered as recent authentication failures, at most; bounds memory under a spray of addresses. */
const MAX_SUSPECTS = 100_000;

/** One warning per this long while the bucket store keeps failing, not one per request. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * Addresses this instance saw fail to authenticate, until their bucket would be full again.
 * Only they are looked up before authenticating: a caller whose credentials work costs no
 * extra round trip, and an address that guesses is checked from its first failure here on.
 */
class SuspectAddresses {
  private readonly until = new Map<string, number>();

  constructor(private readonly suspectForMs: number) {}

  mark(key: string): void {
    const now = Date.now();
    if (this.until.size >= MAX_SUSPECTS) {
      for (const [other, until] of this.until) if (until <= now) this.until.delete(other);
      // Still full: the oldest entries make room; their buckets in the database still limit them.
      for (const other of this.until.keys()) {
        if (this.until.size < MAX_SUSPECTS) break;
        this.until.delete(other);
      }
    }
    this.until.delete(key);
    this.until.set(key, now + this.suspectForMs);
  }

  has(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.until.delete(key);
    return false;
  }
}

/** The limiter's counters: checks that failed open, and refusals by bucket (counted through `counted`). */
function rateLimitMetrics(metrics: ServiceMetrics): {
  failures: ReturnType<ServiceMetrics['counter']>;
  counted: (decision: RateLimitDecision | null) => RateLimitDecision | null;
} {
  const failures = metrics.counter(
    'gateway_rate_limit_check_failures_total',
    'Rate-limit checks that could not reach the bucket store; the request went on unlimited',
  );
  const rejections = metrics.counter('gateway_rate_limit_rejections_total', 'Requests refused with 429, by the bucket that refused them', [
    'bucket',
  ]);
  for (const bucket of ['credential', 'tenant', 'address'] as const) rejections.inc({ bucket }, 0);
  /** A refusal before or after authentication is a 429; one after a failed authentication is not (the 401 stands). */
  const counted = (decision: RateLimitDecision | null): RateLimitDecision | null => {
    if (decision && !decision.allowed) rejections.inc({ bucket: decision.bucket });
    return decision;
  };
  return { failures, counted };
}

/** Runs a check; when the bucket store fails, counts it, warns at most every FAILURE_LOG_INTERVAL_MS, and lets the request through. */
function failingOpen(
  failures: ReturnType<ServiceMetrics['counter']>,
  logger: Logger,
): (check: () => Promise<RateLimitDecision | null>) => Promise<RateLimitDecision | null> {
  let lastWarningMs = 0;
  return async (check) => {
    try {
      return await check();
    } catch (error) {
      failures.inc();
      const now = Date.now();
      if (now - lastWarningMs >= FAILURE_LOG_INTERVAL_MS) {
        lastWarningMs = now;
        logger.warn({ err: error }, 'rate-limit check failed; request let through unlimited');
      }
      return null;
    }
  };
}

/** See RateLimiter.afterAuthentication. */
async function takeAfterAuthentication(
  store: BucketStore,
  policies: RateLimitPolicies,
  suspects: SuspectAddresses,
  principal: Principal,
  remoteAddress: string | undefined,
): Promise<RateLimitDecision | null> {
  if (principal.surface !== 'tenant') return null;
  const checks: Array<{ key: string; policy: BucketPolicy; bucket: RateLimitBucket }> = [];
  const credentialKey = credentialBucketKey(principal);
  if (credentialKey && policies.credential) checks.push({ key: credentialKey, policy: policies.credential, bucket: 'credential' });
  if (principal.tenantId && policies.tenant)
    checks.push({ key: `tenant:${principal.tenantId}`, policy: policies.tenant, bucket: 'tenant' });
  const address = policies.address ? addressBucketKey(remoteAddress) : null;
  // Already looked at before authenticating when this instance knew the address as a suspect.
  const lookAtAddress = address !== null && policies.address !== null && !suspects.has(address);
  if (checks.length === 0 && !lookAtAddress) return null;

  // In parallel: one round trip of latency for every bucket.
  const [addressState, ...states] = await Promise.all([
    lookAtAddress && address && policies.address ? store.peek(address, policies.address) : Promise.resolve(null),
    ...checks.map((check) => store.take(check.key, check.policy)),
  ]);
  if (addressState && !addressState.allowed) {
    await Promise.all(states.filter((state) => state.allowed).map((state) => store.giveBack(state.bucketKey)));
    return decisionOf(addressState, 'address');
  }
  if (states.length === 0) return null;
  const decisions = states.map((state, index) => decisionOf(state, (checks[index] as { bucket: RateLimitBucket }).bucket));
  if (states.some((state) => !state.allowed)) {
    // A refused request spends nothing: what the other bucket took goes back.
    await Promise.all(states.filter((state) => state.allowed).map((state) => store.giveBack(state.bucketKey)));
    return tightest(decisions.filter((decision) => !decision.allowed));
  }
  return tightest(decisions);
}

/**
 * Fails open: when the bucket store cannot be reached the request goes on unlimited (and a
 * warning and a counter say so). Limits protect the services; they are not worth refusing
 * every caller over while the gateway's own database is unavailable.
 */
export function createRateLimiter(
  store: BucketStore,
  policies: RateLimitPolicies,
  options: { logger: Logger; metrics: ServiceMetrics },
): RateLimiter {
  const { failures, counted } = rateLimitMetrics(options.metrics);
  const failOpen = failingOpen(failures, options.logger);
  const addressKey = (remoteAddress: string | undefined) => (policies.address ? addressBucketKey(remoteAddress) : null);
  const suspects = new SuspectAddresses(policies.address ? Math.ceil((policies.address.burst / policies.address.ratePerSecond) * 1000) : 0);

  return {
    beforeAuthentication: (surface, remoteAddress) =>
      failOpen(async () => {
        const key = addressKey(remoteAddress);
        if (!key || !policies.address) return null;
        if (surface === 'public') return decisionOf(await store.take(key, policies.address), 'address');
        if (!suspects.has(key)) return null;
        const state = await store.peek(key, policies.address);
        // Only a refusal speaks here: when credentials work, the address bucket is not what limits the caller.
        return state.allowed ? null : decisionOf(state, 'address');
      }).then(counted),

    afterFailedAuthentication: (remoteAddress) =>
      failOpen(async () => {
        const key = addressKey(remoteAddress);
        if (!key || !policies.address) return null;
        suspects.mark(key);
        return decisionOf(await store.take(key, policies.address), 'address');
      }),

    afterAuthentication: (principal, remoteAddress) =>
      failOpen(() => takeAfterAuthentication(store, policies, suspects, principal, remoteAddress)).then(counted),

    purgeIdle: (limit) => store.purgeIdle(limit),
  };
}

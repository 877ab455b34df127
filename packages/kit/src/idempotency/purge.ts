import type { RetentionRule } from '../retention';
import { checkedTiming } from './store';
import { IDEMPOTENCY_TABLE } from './table';

/**
 * Keys past their retention (`expires_at`, set from the route's ttlHours when the key was
 * claimed) and not held by a live attempt, oldest first along `idempotency_keys_expires_at_idx`.
 * A key the purge has not reached yet already counts as absent (see the store).
 */
export function idempotencyRetentionRule(): RetentionRule {
  return {
    table: IDEMPOTENCY_TABLE,
    column: 'expires_at',
    windowMs: 0,
    // The service's default; a route that names its own ttlHours keeps its keys for that instead.
    lifetimeMs: checkedTiming({}).ttlHours * 3_600_000,
    index: { kind: 'btree' },
    andWhere: `status = 'completed' OR locked_until <= now()`,
  };
}

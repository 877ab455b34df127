import type { Knex } from 'knex';
import type { Db, Tx } from '@wallet/kit';
import type { AttemptOutcome } from './webhook-sender';

/** A delivery the worker took: its row locked by the worker's transaction while it is attempted. */
export interface ClaimedDelivery {
  seq: string;
  id: string;
  endpointId: string;
  tenantId: string;
  environment: 'test' | 'live';
  url: string;
  eventId: string;
  eventType: string;
  /** The attempt this is, from 1. */
  attempt: number;
  /** null when the event is past its retention. */
  payload: string | null;
  /** Whether the endpoint's attempts have been failing (failing_since is set) as of the claim. */
  endpointFailing: boolean;
}

/** The attempts a delivery keeps; a replayed one may attempt more, and the oldest go first. */
export const ATTEMPTS_KEPT_MAX = 20;

/**
 * Locks up to `limit` due deliveries of enabled endpoints in `tx`, the oldest due first, each only
 * when no earlier delivery of the same object to the same endpoint is still pending (so one
 * endpoint gets each object's events in order). The lock is the lease: the transaction stays open
 * while they are attempted and records them; a worker that dies drops its connection, and with it
 * the locks, leaving them due as they were (at least once). SKIP LOCKED lets instances share.
 */
export async function lockDueDeliveries(tx: Tx, limit: number): Promise<ClaimedDelivery[]> {
  const result = await tx.raw<{ rows: Array<Record<string, unknown>> }>(
    `SELECT d.seq, d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count + 1 AS attempt,
            e.url, e.tenant_id, e.environment, e.failing_since IS NOT NULL AS endpoint_failing, ev.payload
       FROM webhook_deliveries d
       JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
       LEFT JOIN platform_events ev ON ev.id = d.event_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries p
           WHERE p.status = 'pending' AND p.endpoint_id = d.endpoint_id AND p.object_id = d.object_id AND p.seq < d.seq)
      ORDER BY d.next_attempt_at
      LIMIT ? FOR UPDATE OF d SKIP LOCKED`,
    [limit],
  );
  return result.rows.map((row) => ({
    seq: String(row.seq),
    id: row.id as string,
    endpointId: row.endpoint_id as string,
    tenantId: row.tenant_id as string,
    environment: row.environment as 'test' | 'live',
    url: row.url as string,
    eventId: row.event_id as string,
    eventType: row.event_type as string,
    attempt: Number(row.attempt),
    payload: (row.payload as string | null) ?? null,
    endpointFailing: row.endpoint_failing === true,
  }));
}

/** What an attempt leaves the delivery: done, failed for good, or due again at a time. */
export type DeliveryNext = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

export interface RecordedAttempt {
  seq: string;
  outcome: AttemptOutcome;
  next: DeliveryNext;
}

/** The attempt as the deliveries list shows it. */
function attemptEntry(outcome: AttemptOutcome, attemptedAt: Date): string {
  return JSON.stringify([
    {
      attemptedAt: attemptedAt.toISOString(),
      responseStatus: outcome.responseStatus,
      latencyMs: outcome.latencyMs,
      excerpt: outcome.excerpt,
    },
  ]);
}

/** Records a batch's attempts and what follows each, in one statement, keeping each delivery's last ATTEMPTS_KEPT_MAX attempts. */
export async function recordAttempts(tx: Tx, attempts: readonly RecordedAttempt[], attemptedAt: Date): Promise<void> {
  if (attempts.length === 0) return;
  await tx.raw(
    `UPDATE webhook_deliveries d
        SET attempts = CASE WHEN jsonb_array_length(d.attempts) >= ? THEN (d.attempts - 0) || v.attempt ELSE d.attempts || v.attempt END,
            attempt_count = d.attempt_count + 1, status = v.status, next_attempt_at = v.next_attempt_at, updated_at = now()
       FROM unnest(?::bigint[], ?::jsonb[], ?::text[], ?::timestamptz[]) AS v(seq, attempt, status, next_attempt_at)
      WHERE d.seq = v.seq`,
    [
      ATTEMPTS_KEPT_MAX,
      attempts.map((attempt) => attempt.seq),
      attempts.map((attempt) => attemptEntry(attempt.outcome, attemptedAt)),
      attempts.map((attempt) => attempt.next.status),
      attempts.map((attempt) => (attempt.next.status === 'pending' ? attempt.next.nextAttemptAt.toISOString() : null)),
    ] as Knex.RawBinding[],
  );
}

/**
 * Notes an endpoint's answer: a success clears its failing streak; a failure starts one where
 * none runs. Answers whether the endpoint has now been failing for at least `disableAfterMs`.
 */
export async function noteEndpointOutcome(
  db: Db | Tx,
  endpoint: { id: string; failing: boolean },
  succeeded: boolean,
  disableAfterMs: number,
): Promise<boolean> {
  const endpointId = endpoint.id;
  if (succeeded) {
    // A healthy endpoint's success changes nothing: no statement for it.
    if (endpoint.failing)
      await db('webhook_endpoints').where({ id: endpointId }).whereNotNull('failing_since').update({ failing_since: null });
    return false;
  }
  const result = await db.raw<{ rows: Array<{ failing_for_ms: string }> }>(
    `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = ?
     RETURNING extract(epoch FROM now() - failing_since) * 1000 AS failing_for_ms`,
    [endpointId],
  );
  const failingFor = Number(result.rows[0]?.failing_for_ms ?? 0);
  return failingFor >= disableAfterMs;
}

/**
 * Disables an endpoint the platform gave up on, once (null when it was disabled already), and
 * fails its pending deliveries, which a replay since a time can send again once it is fixed.
 */
export async function disableEndpoint(
  tx: Tx,
  endpointId: string,
  reason: 'failing' | 'gone',
): Promise<{ tenantId: string; url: string } | null> {
  const [endpoint] = await tx('webhook_endpoints')
    .where({ id: endpointId, enabled: true })
    .update({ enabled: false, disabled_reason: reason, updated_at: tx.fn.now() })
    .returning(['tenant_id', 'url']);
  if (!endpoint) return null;
  await tx('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .update({ status: 'failed', next_attempt_at: null, updated_at: tx.fn.now() });
  return { tenantId: endpoint.tenant_id as string, url: endpoint.url as string };
}

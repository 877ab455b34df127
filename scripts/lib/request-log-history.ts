import { randomUUID } from 'node:crypto';
import { type Environment, newId } from '@wallet/contracts';
import { type Db, daysMs } from '@wallet/kit';
import { createRequestLogStore, type NewRequestLog } from '../../services/gateway/src/features/request-logs/request-log-store';

/**
 * The request logs a month of traffic leaves in the gateway's database, written through its own
 * store (the writer's batch insert, which counts each batch into request_log_days too), oldest
 * first as the writer writes them. The analytics' request-error summary reads a month of them by
 * default: a history without them would not show what that costs.
 */
export interface RequestLogHistoryOptions {
  gatewayDb: Db;
  /** Each tenant with its share of the logs (the shares need not add up to 1). */
  tenants: ReadonlyArray<{ tenantId: string; environment: Environment; share: number }>;
  count: number;
  /** The logs span [now - days, now). */
  days: number;
  batchSize?: number;
}

/** What a month of a money API's answers looks like: mostly successes, a few refusals of each kind. */
const OUTCOMES: ReadonlyArray<{ weight: number; method: string; path: string; status: number; errorCode: string | null }> = [
  { weight: 600, method: 'POST', path: '/v1/transfers', status: 201, errorCode: null },
  { weight: 300, method: 'GET', path: '/v1/wallets/{id}/balance', status: 200, errorCode: null },
  { weight: 40, method: 'POST', path: '/v1/transfers', status: 422, errorCode: 'INSUFFICIENT_FUNDS' },
  { weight: 30, method: 'POST', path: '/v1/transfers', status: 400, errorCode: 'VALIDATION_ERROR' },
  { weight: 20, method: 'GET', path: '/v1/wallets/{id}/balance', status: 404, errorCode: 'WALLET_NOT_FOUND' },
  { weight: 8, method: 'POST', path: '/v1/transfers', status: 409, errorCode: 'IDEMPOTENCY_KEY_REUSED' },
  { weight: 2, method: 'POST', path: '/v1/transfers', status: 503, errorCode: 'DEPENDENCY_UNAVAILABLE' },
];

function weighted<T>(items: readonly T[], weightOf: (item: T) => number): () => T {
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  return () => {
    let point = Math.random() * total;
    for (const item of items) {
      point -= weightOf(item);
      if (point < 0) return item;
    }
    return items[items.length - 1] as T;
  };
}

export interface RequestLogHistoryFigures {
  logs: number;
  seconds: number;
}

export async function buildRequestLogHistory(options: RequestLogHistoryOptions): Promise<RequestLogHistoryFigures> {
  const store = createRequestLogStore(options.gatewayDb, { examineMax: 1 });
  const batchSize = options.batchSize ?? 5_000;
  const pickTenant = weighted(options.tenants, (tenant) => tenant.share);
  const pickOutcome = weighted(OUTCOMES, (outcome) => outcome.weight);
  const started = performance.now();
  const endMs = Date.now();
  const stepMs = daysMs(options.days) / Math.max(1, options.count);
  for (let written = 0; written < options.count;) {
    const batch: NewRequestLog[] = [];
    for (; batch.length < batchSize && written < options.count; written += 1) {
      const tenant = pickTenant();
      const outcome = pickOutcome();
      batch.push({
        id: newId('requestLog'),
        tenantId: tenant.tenantId,
        environment: tenant.environment,
        correlationId: randomUUID(),
        method: outcome.method,
        path: outcome.path,
        status: outcome.status,
        apiKeyId: null,
        authMode: 'secret',
        requestSignatureVerified: false,
        idempotencyKey: null,
        actorType: null,
        actorId: null,
        durationMs: 20,
        errorCode: outcome.errorCode,
        createdAt: new Date(endMs - (options.count - written) * stepMs),
      });
    }
    await store.insert(batch);
  }
  return { logs: options.count, seconds: (performance.now() - started) / 1000 };
}

import { type AnalyticsRequestErrors, type Environment, REQUEST_LOG_SUMMARY_PATH, requestErrorSummarySchema } from '@wallet/contracts';
import { callInternal, type InternalCall, type InternalPeer, type Logger } from '@wallet/kit';

export interface RequestErrorsClientOptions {
  /** The gateway's admin listener (GATEWAY_INTERNAL_URL): internal routes are served there only. */
  baseUrl: string;
  internalTokenSecret: string;
  timeoutMs: number;
  logger: Logger;
}

export interface RequestErrorsReader {
  /** One tenant's requests of one environment, or every tenant's when `tenantId` is absent, in [from, to). */
  summary(query: { tenantId?: string; environment: Environment; from: Date; to: Date }): Promise<AnalyticsRequestErrors>;
}

/**
 * Asks the gateway. The money figures never depend on it: when it cannot answer, the section is
 * marked unavailable and the rest of the analytics still answers.
 */
export function requestErrorsClient(options: RequestErrorsClientOptions): RequestErrorsReader {
  const gateway: InternalPeer = { name: 'gateway', ...options };
  return {
    async summary(query) {
      // A tenant's token can only ever read that tenant: the gateway takes the scope from it, not from the query.
      const claims: InternalCall['claims'] =
        query.tenantId !== undefined
          ? { surface: 'tenant', tenantId: query.tenantId, environment: query.environment, scopes: ['analytics:read'] }
          : { surface: 'system', tenantId: null, environment: null, scopes: ['*'] };
      const search = new URLSearchParams({ from: query.from.toISOString(), to: query.to.toISOString(), environment: query.environment });
      try {
        const answer = await callInternal(gateway, {
          method: 'GET',
          pathWithQuery: `${REQUEST_LOG_SUMMARY_PATH}?${search.toString()}`,
          claims,
          returnServerErrors: true,
        });
        if (answer.status !== 200) {
          options.logger.warn(
            { status: answer.status, body: JSON.stringify(answer.body ?? '').slice(0, 500) },
            'gateway request-log summary refused',
          );
          return { available: false, reason: `The gateway answered ${answer.status}` };
        }
        return { available: true, ...requestErrorSummarySchema.parse(answer.body) };
      } catch (error) {
        options.logger.warn({ err: error }, 'gateway request-log summary unavailable');
        return { available: false, reason: 'The gateway could not be reached' };
      }
    },
  };
}

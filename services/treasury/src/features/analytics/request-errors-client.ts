import { randomUUID } from 'node:crypto';
import { type AnalyticsRequestErrors, type Environment, REQUEST_LOG_SUMMARY_PATH, requestErrorSummarySchema } from '@wallet/contracts';
import { currentContext, INTERNAL_TOKEN_HEADER, type Logger, signInternalToken } from '@wallet/kit';

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
  return {
    async summary(query) {
      const correlationId = currentContext()?.correlationId ?? randomUUID();
      // A tenant's token can only ever read that tenant: the gateway takes the scope from it, not from the query.
      const token =
        query.tenantId !== undefined
          ? signInternalToken(options.internalTokenSecret, { surface: 'tenant', tenantId: query.tenantId, environment: query.environment, scopes: ['analytics:read'], keyId: null, actor: null })
          : signInternalToken(options.internalTokenSecret, { surface: 'system', tenantId: null, environment: null, scopes: ['*'], keyId: null, actor: null });
      const search = new URLSearchParams({ from: query.from.toISOString(), to: query.to.toISOString(), environment: query.environment });
      try {
        const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}${REQUEST_LOG_SUMMARY_PATH}?${search.toString()}`, {
          headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await response.text();
        if (response.status !== 200) {
          options.logger.warn({ status: response.status, body: text.slice(0, 500) }, 'gateway request-log summary refused');
          return { available: false, reason: `The gateway answered ${response.status}` };
        }
        return { available: true, ...requestErrorSummarySchema.parse(JSON.parse(text)) };
      } catch (error) {
        options.logger.warn({ err: error }, 'gateway request-log summary unavailable');
        return { available: false, reason: 'The gateway could not be reached' };
      }
    },
  };
}

import { randomUUID } from 'node:crypto';
import { type Environment, type LedgerAccount, ledgerAccountPageSchema, PAGE_LIMIT_MAX } from '@wallet/contracts';
import { AppError, currentContext, INTERNAL_TOKEN_HEADER, type Logger, signInternalToken } from '@wallet/kit';

export interface LedgerScope {
  tenantId: string;
  environment: Environment;
}

export interface LedgerReadsOptions {
  /** The ledger's internal address (LEDGER_URL). */
  baseUrl: string;
  internalTokenSecret: string;
  timeoutMs: number;
  logger: Logger;
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The ledger cannot be reached right now; retry shortly');
}

/**
 * Treasury's reads of the ledger's accounts over HTTP, as the tenant and environment of the
 * request: the ledger filters by them itself, so a read only ever sees that tenant's accounts.
 * Balances are never guessed: no answer, or a 5xx, is a 503.
 */
export class LedgerReads {
  constructor(private readonly options: LedgerReadsOptions) {}

  /** Every account of this name in the scope (one per currency), through all pages. */
  async accountsNamed(scope: LedgerScope, name: string): Promise<LedgerAccount[]> {
    const accounts: LedgerAccount[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ name, limit: String(PAGE_LIMIT_MAX), ...(cursor !== null ? { cursor } : {}) });
      const page = ledgerAccountPageSchema.parse(await this.get(scope, `/v1/ledger/accounts?${query.toString()}`));
      accounts.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return accounts;
  }

  private async get(scope: LedgerScope, pathWithQuery: string): Promise<unknown> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const token = signInternalToken(this.options.internalTokenSecret, { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['ledger:read'], keyId: null, actor: null, correlationId });
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}${pathWithQuery}`, {
        headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      this.options.logger.warn({ err: error, path: pathWithQuery }, 'ledger unreachable');
      throw unavailable();
    }
    if (status >= 500) {
      this.options.logger.warn({ status, path: pathWithQuery }, 'ledger call failed');
      throw unavailable();
    }
    // Anything but 200 here is a bug on one side of the contract, not something to show a client.
    if (status !== 200) throw new Error(`unexpected ledger answer ${status}: ${text}`);
    return JSON.parse(text) as unknown;
  }
}

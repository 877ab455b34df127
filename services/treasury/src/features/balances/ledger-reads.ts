import { type Environment, type LedgerAccount, ledgerAccountPageSchema, PAGE_LIMIT_MAX } from '@wallet/contracts';
import { callInternal, type Logger, unexpectedAnswer } from '@wallet/kit';

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
    const answer = await callInternal(
      { ...this.options, name: 'ledger', unavailableMessage: 'The ledger cannot be reached right now; retry shortly' },
      { method: 'GET', pathWithQuery, claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['ledger:read'] } },
    );
    // Anything but 200 here is a bug on one side of the contract, not something to show a client.
    if (answer.status !== 200) throw unexpectedAnswer('ledger', answer);
    return answer.body;
  }
}

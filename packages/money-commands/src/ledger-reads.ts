import {
  accountBalanceAtSchema,
  type AccountBalanceAt,
  type Environment,
  errorBodySchema,
  type JournalEntry,
  type JournalEntryDigest,
  type JournalEntryDigestBody,
  journalEntryDigestSchema,
  journalEntryLookupSchema,
  journalReferencesAfterSchema,
  JOURNAL_LOOKUP_MAX,
  type LedgerAccount,
  ledgerAccountPageSchema,
  type LedgerFullRun,
  ledgerFullRunSchema,
  PAGE_LIMIT_MAX,
  type Page,
  type StatementQuery,
  type ReconciliationResult,
  reconciliationResultSchema,
  type RecordDigests,
  recordDigestsSchema,
  type RecordScope,
  statementPageSchema,
} from '@wallet/contracts';
import {
  AppError,
  callInternal,
  type InternalAnswer,
  type InternalCall,
  type InternalPeer,
  type Logger,
  SYSTEM_CALL_CLAIMS,
  unexpectedAnswer,
} from '@wallet/kit';
import type { JournalForRecords, NamingEntries } from './reconciliation/business-records';
import type { z } from 'zod';

/** One tenant's environment: what a read as the tenant sees, the ledger filtering by it itself. */
export interface LedgerScope {
  tenantId: string;
  environment: Environment;
}

export type StatementLine = z.infer<typeof statementPageSchema>['data'][number];

export interface LedgerReadsOptions {
  /** The ledger's internal address (LEDGER_URL). */
  baseUrl: string;
  internalTokenSecret: string;
  /** Connecting, the answer and its body. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * Every read of the ledger over HTTP: a tenant's accounts, statements and balances as that
 * tenant (so a read only ever sees its accounts), and what reconciliation asks as the platform.
 * Nothing read from the ledger is ever guessed: no answer, or a 5xx, is a 503.
 */
export class LedgerReads implements JournalForRecords {
  private readonly ledger: InternalPeer;

  constructor(options: LedgerReadsOptions) {
    this.ledger = { ...options, name: 'ledger', unavailableMessage: 'The ledger cannot be reached right now; retry shortly' };
  }

  // ---- as the tenant ----

  /** The accounts of these wallets, by wallet id, in one call; a wallet the ledger has no account for yet is absent. */
  async walletAccounts(scope: LedgerScope, walletIds: readonly string[]): Promise<Map<string, LedgerAccount>> {
    const accounts = new Map<string, LedgerAccount>();
    if (walletIds.length === 0) return accounts;
    if (walletIds.length > PAGE_LIMIT_MAX) throw new Error(`at most ${PAGE_LIMIT_MAX} wallets per ledger read, got ${walletIds.length}`);
    const query = new URLSearchParams({ walletIds: walletIds.join(','), limit: String(walletIds.length) });
    const answer = await this.asTenant(scope, `/v1/ledger/accounts?${query.toString()}`);
    for (const account of ledgerAccountPageSchema.parse(ok(answer)).data) {
      if (account.walletId !== null) accounts.set(account.walletId, account);
    }
    return accounts;
  }

  /** Every account of this name in the scope (one per currency), through all pages. */
  async accountsNamed(scope: LedgerScope, name: string): Promise<LedgerAccount[]> {
    const accounts: LedgerAccount[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ name, limit: String(PAGE_LIMIT_MAX), ...(cursor !== null ? { cursor } : {}) });
      const page = ledgerAccountPageSchema.parse(ok(await this.asTenant(scope, `/v1/ledger/accounts?${query.toString()}`)));
      accounts.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return accounts;
  }

  /** A wallet account's statement page, or null when the ledger has no account for the wallet yet. */
  async walletStatement(scope: LedgerScope, walletId: string, page: StatementQuery): Promise<Page<StatementLine> | null> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    for (const name of ['cursor', 'createdFrom', 'createdTo'] as const) {
      const value = page[name];
      if (value !== undefined) query.set(name, value);
    }
    const answer = await this.asTenant(scope, `/v1/ledger/wallets/${encodeURIComponent(walletId)}/entries?${query.toString()}`);
    if (answer.status === 200) return statementPageSchema.parse(answer.body);
    const code = errorCodeOf(answer.body);
    if (answer.status === 404 && code === 'WALLET_NOT_FOUND') return null;
    // The cursor came from the client and travels on untouched: the ledger judges it.
    if (answer.status === 400 && code === 'INVALID_CURSOR') throw new AppError('INVALID_CURSOR', 'The cursor is malformed');
    throw unexpectedAnswer('ledger', answer);
  }

  /** A wallet account's balance as of a moment (`at` as balanceMomentSchema leaves it), or null when the ledger has no account for the wallet yet. */
  async walletBalanceAt(scope: LedgerScope, walletId: string, at: string): Promise<AccountBalanceAt | null> {
    const answer = await this.asTenant(
      scope,
      `/v1/ledger/wallets/${encodeURIComponent(walletId)}/balance?${new URLSearchParams({ at }).toString()}`,
    );
    if (answer.status === 200) return accountBalanceAtSchema.parse(answer.body);
    if (answer.status === 404 && errorCodeOf(answer.body) === 'WALLET_NOT_FOUND') return null;
    throw unexpectedAnswer('ledger', answer);
  }

  // ---- reconciliation: the ledger's own checks (1 and 2) ----

  /** The ledger's checks, run now, as the tenant (its reconciliation route) or the platform (`scope` null: every tenant). */
  async checks(scope: LedgerScope | null): Promise<ReconciliationResult> {
    const answer = scope
      ? await this.call({
          method: 'GET',
          pathWithQuery: '/v1/ledger/reconciliation',
          claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['analytics:read'] },
        })
      : await this.call({ method: 'GET', pathWithQuery: '/v1/system/ledger/reconciliation', claims: SYSTEM_CALL_CLAIMS });
    return reconciliationResultSchema.parse(ok(answer));
  }

  /** Starts the ledger's background re-verification of checks 1 and 2 from zero. */
  async startFullRun(scope: LedgerScope | null): Promise<LedgerFullRun> {
    const body = scope ? { tenantId: scope.tenantId, environment: scope.environment } : {};
    const answer = await this.call({
      method: 'POST',
      pathWithQuery: '/internal/v1/reconciliation/full-runs',
      claims: SYSTEM_CALL_CLAIMS,
      body,
    });
    if (answer.status !== 202) throw unexpectedAnswer('ledger', answer);
    return ledgerFullRunSchema.parse(answer.body);
  }

  async fullRun(id: string): Promise<LedgerFullRun> {
    const answer = await this.call({
      method: 'GET',
      pathWithQuery: `/internal/v1/reconciliation/full-runs/${encodeURIComponent(id)}`,
      claims: SYSTEM_CALL_CLAIMS,
    });
    return ledgerFullRunSchema.parse(ok(answer));
  }

  // ---- reconciliation: check 3's questions about business records' entries, as the platform ----

  async entries(ids: readonly string[]): Promise<Map<string, JournalEntry>> {
    const found = new Map<string, JournalEntry>();
    if (ids.length === 0) return found;
    if (ids.length > JOURNAL_LOOKUP_MAX) throw new Error(`at most ${JOURNAL_LOOKUP_MAX} entries per lookup, got ${ids.length}`);
    const answer = await this.call({
      method: 'POST',
      pathWithQuery: '/internal/v1/journal/entries/lookup',
      claims: SYSTEM_CALL_CLAIMS,
      body: { ids },
    });
    for (const entry of journalEntryLookupSchema.parse(ok(answer)).data) found.set(entry.id, entry);
    return found;
  }

  async namingEntries(
    referenceType: string,
    scopes: ReadonlyArray<RecordScope & { afterSeq: string }>,
    limitPerScope: number,
  ): Promise<NamingEntries> {
    if (scopes.length === 0) return { data: [], snapshot: { xmin: '0', xmax: '0' }, scanned: [] };
    const body = {
      referenceType,
      scopes: scopes.map(({ tenantId, environment, afterSeq }) => ({ tenantId, environment, afterSeq })),
      limitPerScope,
    };
    const answer = await this.call({
      method: 'POST',
      pathWithQuery: '/internal/v1/journal/references/after',
      claims: SYSTEM_CALL_CLAIMS,
      body,
    });
    return journalReferencesAfterSchema.parse(ok(answer));
  }

  async digest(body: JournalEntryDigestBody): Promise<JournalEntryDigest> {
    const answer = await this.call({
      method: 'POST',
      pathWithQuery: '/internal/v1/journal/entries/digest',
      claims: SYSTEM_CALL_CLAIMS,
      body,
    });
    return journalEntryDigestSchema.parse(ok(answer));
  }

  async digestsAfter(afterSeq: string, scope: RecordScope | null): Promise<RecordDigests> {
    const body = { afterSeq, ...(scope ? { tenantId: scope.tenantId, environment: scope.environment } : {}) };
    const answer = await this.call({
      method: 'POST',
      pathWithQuery: '/internal/v1/journal/digests/after',
      claims: SYSTEM_CALL_CLAIMS,
      body,
    });
    return recordDigestsSchema.parse(ok(answer));
  }

  private asTenant(scope: LedgerScope, pathWithQuery: string): Promise<InternalAnswer> {
    return this.call({
      method: 'GET',
      pathWithQuery,
      claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['ledger:read'] },
    });
  }

  private call(call: InternalCall): Promise<InternalAnswer> {
    return callInternal(this.ledger, call);
  }
}

/** Anything but 200 here is a bug on one side of the contract, not something to show a client. */
function ok(answer: InternalAnswer): unknown {
  if (answer.status !== 200) throw unexpectedAnswer('ledger', answer);
  return answer.body;
}

function errorCodeOf(body: unknown): string | undefined {
  const parsed = errorBodySchema.safeParse(body);
  return parsed.success ? parsed.data.error.code : undefined;
}

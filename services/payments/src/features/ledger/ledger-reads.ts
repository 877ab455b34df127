import {
  accountBalanceAtSchema,
  type AccountBalanceAt,
  type Environment,
  errorBodySchema,
  type LedgerAccount,
  ledgerAccountPageSchema,
  PAGE_LIMIT_MAX,
  type Page,
  type PageQuery,
  statementPageSchema,
} from '@wallet/contracts';
import { AppError, callInternal, type InternalAnswer, type InternalCall, type Logger } from '@wallet/kit';

const LEDGER_UNAVAILABLE = 'The ledger cannot be reached right now; retry shortly';
import type { z } from 'zod';

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

export type LedgerAnswer = InternalAnswer;
export type LedgerCall = InternalCall;

/**
 * One HTTP call to the ledger with a fresh internal token. No answer, or a 5xx, is a 503 for
 * payments' caller: nothing read from the ledger is ever guessed.
 */
export function callLedger(options: LedgerReadsOptions, call: LedgerCall): Promise<LedgerAnswer> {
  return callInternal({ ...options, name: 'ledger', unavailableMessage: LEDGER_UNAVAILABLE }, call);
}

/**
 * Payments' reads of the ledger over HTTP, as the tenant and environment of the request: the
 * ledger filters by them itself, so a read can only ever see that tenant's accounts. Balances
 * are never guessed: no answer is a 503.
 */
export class LedgerReads {
  constructor(private readonly options: LedgerReadsOptions) {}

  /** The accounts of these wallets, by wallet id, in one call; a wallet the ledger has no account for yet is absent. */
  async walletAccounts(scope: LedgerScope, walletIds: readonly string[]): Promise<Map<string, LedgerAccount>> {
    const accounts = new Map<string, LedgerAccount>();
    if (walletIds.length === 0) return accounts;
    if (walletIds.length > PAGE_LIMIT_MAX) throw new Error(`at most ${PAGE_LIMIT_MAX} wallets per ledger read, got ${walletIds.length}`);
    const query = new URLSearchParams({ walletIds: walletIds.join(','), limit: String(walletIds.length) });
    const answer = await this.get(scope, `/v1/ledger/accounts?${query.toString()}`);
    if (answer.status !== 200) throw this.unexpected(answer);
    for (const account of ledgerAccountPageSchema.parse(answer.body).data) {
      if (account.walletId !== null) accounts.set(account.walletId, account);
    }
    return accounts;
  }

  /** A wallet account's statement page, or null when the ledger has no account for the wallet yet. */
  async walletStatement(scope: LedgerScope, walletId: string, page: PageQuery): Promise<Page<StatementLine> | null> {
    const query = new URLSearchParams({ limit: String(page.limit), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) });
    const answer = await this.get(scope, `/v1/ledger/wallets/${encodeURIComponent(walletId)}/entries?${query.toString()}`);
    if (answer.status === 200) return statementPageSchema.parse(answer.body);
    const code = errorCodeOf(answer.body);
    if (answer.status === 404 && code === 'WALLET_NOT_FOUND') return null;
    // The cursor came from the client and travels on untouched: the ledger judges it.
    if (answer.status === 400 && code === 'INVALID_CURSOR') throw new AppError('INVALID_CURSOR', 'The cursor is malformed');
    throw this.unexpected(answer);
  }

  /** A wallet account's balance as of a moment (`at` as balanceMomentSchema leaves it), or null when the ledger has no account for the wallet yet. */
  async walletBalanceAt(scope: LedgerScope, walletId: string, at: string): Promise<AccountBalanceAt | null> {
    const answer = await this.get(scope, `/v1/ledger/wallets/${encodeURIComponent(walletId)}/balance?${new URLSearchParams({ at }).toString()}`);
    if (answer.status === 200) return accountBalanceAtSchema.parse(answer.body);
    if (answer.status === 404 && errorCodeOf(answer.body) === 'WALLET_NOT_FOUND') return null;
    throw this.unexpected(answer);
  }

  private get(scope: LedgerScope, pathWithQuery: string): Promise<LedgerAnswer> {
    return callLedger(this.options, {
      method: 'GET',
      pathWithQuery,
      claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['ledger:read'] },
    });
  }

  private unexpected(answer: LedgerAnswer): Error {
    return unexpectedLedgerAnswer(answer);
  }
}

/** An answer the contract does not allow: a bug on one side, not something to show a client. */
export function unexpectedLedgerAnswer(answer: LedgerAnswer): Error {
  return new Error(`unexpected ledger answer ${answer.status}: ${JSON.stringify(answer.body)}`);
}

function errorCodeOf(body: unknown): string | undefined {
  const parsed = errorBodySchema.safeParse(body);
  return parsed.success ? parsed.data.error.code : undefined;
}

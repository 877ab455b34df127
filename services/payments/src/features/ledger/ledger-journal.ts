import {
  type JournalEntry,
  journalEntryLookupSchema,
  type JournalReference,
  journalReferencePageSchema,
  PAGE_LIMIT_MAX,
  type Page,
  type ReconciliationResult,
  reconciliationResultSchema,
} from '@wallet/contracts';
import { callLedger, type LedgerAnswer, type LedgerReadsOptions, type LedgerScope, unexpectedLedgerAnswer } from './ledger-reads';

const SYSTEM = { surface: 'system' as const, tenantId: null, environment: null, scopes: [] };

function scopeFields(scope: LedgerScope | null): Record<string, string> {
  return scope ? { tenantId: scope.tenantId, environment: scope.environment } : {};
}

/**
 * What reconciliation asks of the ledger: its own checks (1 and 2), entries by id, and the
 * entries naming one type of business record. `scope` null means every tenant.
 */
export class LedgerJournal {
  constructor(private readonly options: LedgerReadsOptions) {}

  /** The ledger's checks, run now, as the tenant (its reconciliation route) or the platform. */
  async checks(scope: LedgerScope | null): Promise<ReconciliationResult> {
    const answer = scope
      ? await callLedger(this.options, { method: 'GET', pathWithQuery: '/v1/ledger/reconciliation', claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['analytics:read'] } })
      : await callLedger(this.options, { method: 'GET', pathWithQuery: '/v1/system/ledger/reconciliation', claims: SYSTEM });
    return reconciliationResultSchema.parse(this.ok(answer));
  }

  /** The entries with these ids (at most a page), by id; an id the ledger lacks in the scope is absent. */
  async entries(scope: LedgerScope | null, ids: readonly string[]): Promise<Map<string, JournalEntry>> {
    const found = new Map<string, JournalEntry>();
    if (ids.length === 0) return found;
    if (ids.length > PAGE_LIMIT_MAX) throw new Error(`at most ${PAGE_LIMIT_MAX} entries per lookup, got ${ids.length}`);
    const answer = await callLedger(this.options, { method: 'POST', pathWithQuery: '/internal/v1/journal/entries/lookup', claims: SYSTEM, body: { ids, ...scopeFields(scope) } });
    for (const entry of journalEntryLookupSchema.parse(this.ok(answer)).data) found.set(entry.id, entry);
    return found;
  }

  /** One page of the entries naming a record of this type, in a stable order. */
  async references(scope: LedgerScope | null, referenceType: string, page: { cursor: string | null; limit: number }): Promise<Page<JournalReference>> {
    const query = new URLSearchParams({ referenceType, limit: String(page.limit), ...scopeFields(scope), ...(page.cursor !== null ? { cursor: page.cursor } : {}) });
    const answer = await callLedger(this.options, { method: 'GET', pathWithQuery: `/internal/v1/journal/references?${query.toString()}`, claims: SYSTEM });
    return journalReferencePageSchema.parse(this.ok(answer));
  }

  private ok(answer: LedgerAnswer): unknown {
    if (answer.status !== 200) throw unexpectedLedgerAnswer(answer);
    return answer.body;
  }
}

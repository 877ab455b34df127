import { type LedgerFullRun, ledgerFullRunSchema, type ReconciliationResult, reconciliationResultSchema } from '@wallet/contracts';
import { callLedger, type LedgerAnswer, type LedgerReadsOptions, type LedgerScope, unexpectedLedgerAnswer } from './ledger-reads';

const SYSTEM = { surface: 'system' as const, tenantId: null, environment: null, scopes: [] };

/** What reconciliation asks of the ledger as the tenant or the platform: its own checks (1 and 2). `scope` null means every tenant. */
export class LedgerJournal {
  constructor(private readonly options: LedgerReadsOptions) {}

  /** The ledger's checks, run now, as the tenant (its reconciliation route) or the platform. */
  async checks(scope: LedgerScope | null): Promise<ReconciliationResult> {
    const answer = scope
      ? await callLedger(this.options, { method: 'GET', pathWithQuery: '/v1/ledger/reconciliation', claims: { surface: 'tenant', tenantId: scope.tenantId, environment: scope.environment, scopes: ['analytics:read'] } })
      : await callLedger(this.options, { method: 'GET', pathWithQuery: '/v1/system/ledger/reconciliation', claims: SYSTEM });
    return reconciliationResultSchema.parse(this.ok(answer));
  }

  /** Starts the ledger's background re-verification of checks 1 and 2 from zero. */
  async startFullRun(scope: LedgerScope | null): Promise<LedgerFullRun> {
    const body = scope ? { tenantId: scope.tenantId, environment: scope.environment } : {};
    const answer = await callLedger(this.options, { method: 'POST', pathWithQuery: '/internal/v1/reconciliation/full-runs', claims: SYSTEM, body });
    if (answer.status !== 202) throw unexpectedLedgerAnswer(answer);
    return ledgerFullRunSchema.parse(answer.body);
  }

  async fullRun(id: string): Promise<LedgerFullRun> {
    const answer = await callLedger(this.options, { method: 'GET', pathWithQuery: `/internal/v1/reconciliation/full-runs/${encodeURIComponent(id)}`, claims: SYSTEM });
    return ledgerFullRunSchema.parse(this.ok(answer));
  }

  private ok(answer: LedgerAnswer): unknown {
    if (answer.status !== 200) throw unexpectedLedgerAnswer(answer);
    return answer.body;
  }
}

import { type BusinessRecordsCheck, businessRecordsCheckSchema, type RecordDigests, type RecordScope } from '@wallet/contracts';
import { callInternal, type InternalPeer, SYSTEM_CALL_CLAIMS, unexpectedAnswer } from '@wallet/kit';

/**
 * Treasury answers check 3 for its own records (float deposits, withdrawal cases): it compares
 * them with the ledger itself and sends back only what it found and what it covered.
 */
export class TreasuryRecords {
  private readonly peer: InternalPeer;

  constructor(options: Omit<InternalPeer, 'name'>) {
    this.peer = { ...options, name: 'treasury' };
  }

  /** `ledgerDigests` (a full run's): the ledger's full pass's digests, which treasury compares its records with. */
  async check(
    scope: RecordScope | null,
    options: { mode: 'incremental' | 'full'; limit: number; timeoutMs?: number; ledgerDigests?: RecordDigests },
  ): Promise<BusinessRecordsCheck> {
    const body = {
      mode: options.mode,
      limit: options.limit,
      ...(scope ? { tenantId: scope.tenantId, environment: scope.environment } : {}),
      ...(options.ledgerDigests ? { ledgerDigests: options.ledgerDigests } : {}),
    };
    const peer = options.timeoutMs === undefined ? this.peer : { ...this.peer, timeoutMs: options.timeoutMs };
    const answer = await callInternal(peer, {
      method: 'POST',
      pathWithQuery: '/internal/v1/business-records/check',
      claims: SYSTEM_CALL_CLAIMS,
      body,
    });
    if (answer.status !== 200) throw unexpectedAnswer('treasury', answer);
    return businessRecordsCheckSchema.parse(answer.body);
  }
}

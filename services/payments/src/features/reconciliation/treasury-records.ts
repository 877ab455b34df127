import {
  type BusinessRecordSource,
  businessRecordTypesSchema,
  finishedRecordsPageSchema,
  type RecordScope,
  recordLookupSchema,
} from '@wallet/contracts';
import { callInternal, type InternalAnswer, type InternalPeer, SYSTEM_CALL_CLAIMS, unexpectedAnswer } from '@wallet/kit';

function ok(answer: InternalAnswer): unknown {
  if (answer.status !== 200) throw unexpectedAnswer('treasury', answer);
  return answer.body;
}

/**
 * Treasury's business records (float deposits, withdrawal cases) for check 3: treasury answers
 * with what its own posting builders meant to write, so the expected lines are never derived
 * twice. The types are asked for on every run: a treasury that gains one is checked at once.
 */
export class TreasuryRecords {
  private readonly peer: InternalPeer;

  constructor(options: Omit<InternalPeer, 'name'>) {
    this.peer = { ...options, name: 'treasury' };
  }

  async sources(): Promise<BusinessRecordSource[]> {
    const answer = await callInternal(this.peer, { method: 'GET', pathWithQuery: '/internal/v1/business-records', claims: SYSTEM_CALL_CLAIMS });
    return businessRecordTypesSchema.parse(ok(answer)).data.map((referenceType) => this.source(referenceType));
  }

  private source(referenceType: string): BusinessRecordSource {
    const base = `/internal/v1/business-records/${encodeURIComponent(referenceType)}`;
    return {
      referenceType,
      finishedPage: async (scope: RecordScope, page) => {
        const query = new URLSearchParams({ tenantId: scope.tenantId, environment: scope.environment, limit: String(page.limit), ...(page.cursor !== null ? { cursor: page.cursor } : {}) });
        const answer = await callInternal(this.peer, { method: 'GET', pathWithQuery: `${base}/finished?${query.toString()}`, claims: SYSTEM_CALL_CLAIMS });
        return finishedRecordsPageSchema.parse(ok(answer));
      },
      byIds: async (scope, ids) => {
        if (ids.length === 0) return [];
        const body = { ids, ...(scope ? { tenantId: scope.tenantId, environment: scope.environment } : {}) };
        const answer = await callInternal(this.peer, { method: 'POST', pathWithQuery: `${base}/lookup`, claims: SYSTEM_CALL_CLAIMS, body });
        return recordLookupSchema.parse(ok(answer)).data;
      },
    };
  }
}

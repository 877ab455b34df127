import { type JournalEntry, type JournalEntryDigest, type JournalEntryDigestBody, journalEntryDigestSchema, journalEntryLookupSchema, journalReferencesAfterSchema, JOURNAL_LOOKUP_MAX, type RecordDigests, recordDigestsSchema, type RecordScope } from '@wallet/contracts';
import { callInternal, type InternalAnswer, type InternalPeer, SYSTEM_CALL_CLAIMS, unexpectedAnswer } from '../internal-call';
import type { JournalForRecords, NamingEntries } from './business-records';

function ok(answer: InternalAnswer): unknown {
  if (answer.status !== 200) throw unexpectedAnswer('ledger', answer);
  return answer.body;
}

/** Check 3's questions to the ledger over its internal routes, as the platform (every scope). */
export class LedgerJournalClient implements JournalForRecords {
  private readonly peer: InternalPeer;

  constructor(options: Omit<InternalPeer, 'name' | 'unavailableMessage'>) {
    this.peer = { ...options, name: 'ledger', unavailableMessage: 'The ledger cannot be reached right now; retry shortly' };
  }

  async entries(ids: readonly string[]): Promise<Map<string, JournalEntry>> {
    const found = new Map<string, JournalEntry>();
    if (ids.length === 0) return found;
    if (ids.length > JOURNAL_LOOKUP_MAX) throw new Error(`at most ${JOURNAL_LOOKUP_MAX} entries per lookup, got ${ids.length}`);
    const answer = await callInternal(this.peer, { method: 'POST', pathWithQuery: '/internal/v1/journal/entries/lookup', claims: SYSTEM_CALL_CLAIMS, body: { ids } });
    for (const entry of journalEntryLookupSchema.parse(ok(answer)).data) found.set(entry.id, entry);
    return found;
  }

  async namingEntries(referenceType: string, scopes: ReadonlyArray<RecordScope & { afterSeq: string }>, limitPerScope: number): Promise<NamingEntries> {
    if (scopes.length === 0) return { data: [], snapshot: { xmin: '0', xmax: '0' }, scanned: [] };
    const body = { referenceType, scopes: scopes.map(({ tenantId, environment, afterSeq }) => ({ tenantId, environment, afterSeq })), limitPerScope };
    const answer = await callInternal(this.peer, { method: 'POST', pathWithQuery: '/internal/v1/journal/references/after', claims: SYSTEM_CALL_CLAIMS, body });
    return journalReferencesAfterSchema.parse(ok(answer));
  }

  async digest(body: JournalEntryDigestBody): Promise<JournalEntryDigest> {
    const answer = await callInternal(this.peer, { method: 'POST', pathWithQuery: '/internal/v1/journal/entries/digest', claims: SYSTEM_CALL_CLAIMS, body });
    return journalEntryDigestSchema.parse(ok(answer));
  }

  async digestsAfter(afterSeq: string, scope: RecordScope | null): Promise<RecordDigests> {
    const body = { afterSeq, ...(scope ? { tenantId: scope.tenantId, environment: scope.environment } : {}) };
    const answer = await callInternal(this.peer, { method: 'POST', pathWithQuery: '/internal/v1/journal/digests/after', claims: SYSTEM_CALL_CLAIMS, body });
    return recordDigestsSchema.parse(ok(answer));
  }
}

import { type BusinessRecordSource, type JournalEntry, PAGE_LIMIT_MAX, type PostedRecord } from '@wallet/contracts';
import type { LedgerJournal } from '../ledger/ledger-journal';
import { entryDifferences } from './journal-comparison';
import type { ReconciliationScope } from './reconciliation-store';

export type Mismatch = Record<string, unknown>;

/** Collects mismatches up to a limit; a check stops reading once it is full, like the ledger's checks. */
export class MismatchList {
  readonly items: Mismatch[] = [];
  constructor(private readonly limit: number) {}

  add(mismatch: Mismatch): void {
    if (!this.full) this.items.push(mismatch);
  }

  get full(): boolean {
    return this.items.length >= this.limit;
  }
}

export interface BusinessRecordsCheckOptions {
  sources: readonly BusinessRecordSource[];
  ledger: LedgerJournal;
  /** The scopes to walk when checking every tenant, one after the other. */
  nextScope: (after: ReconciliationScope | null) => Promise<ReconciliationScope | null>;
  /** Records and entries read per round trip; at most a ledger lookup's worth. */
  batchSize?: number;
}

/**
 * Check 3 of api-decisions section 9, both ways: every finished record has exactly the entry
 * it meant to post (read from the ledger in batches by the ids the records name), and every
 * entry naming a record of a source's type points at a finished record that names it back.
 * Memory is bounded by one batch; `scope` null covers every tenant.
 */
export async function checkBusinessRecords(options: BusinessRecordsCheckOptions, scope: ReconciliationScope | null, mismatches: MismatchList): Promise<void> {
  const batchSize = Math.min(options.batchSize ?? PAGE_LIMIT_MAX, PAGE_LIMIT_MAX);
  for (const source of options.sources) {
    if (scope) await recordsHaveTheirEntries(options, source, scope, scope, batchSize, mismatches);
    else {
      for (let each = await options.nextScope(null); each && !mismatches.full; each = await options.nextScope(each)) {
        await recordsHaveTheirEntries(options, source, each, null, batchSize, mismatches);
      }
    }
    await entriesPointAtRecords(options, source, scope, batchSize, mismatches);
  }
}

/** `lookupScope` null lets the lookup find an entry in another scope, so the report can say so. */
async function recordsHaveTheirEntries(
  options: BusinessRecordsCheckOptions,
  source: BusinessRecordSource,
  scope: ReconciliationScope,
  lookupScope: ReconciliationScope | null,
  batchSize: number,
  mismatches: MismatchList,
): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await source.finishedPage(scope, { cursor, limit: batchSize });
    await compareBatch(options, source, page.records, lookupScope, mismatches);
    cursor = page.cursor;
  } while (cursor !== null && !mismatches.full);
}

async function compareBatch(options: BusinessRecordsCheckOptions, source: BusinessRecordSource, records: PostedRecord[], lookupScope: ReconciliationScope | null, mismatches: MismatchList): Promise<void> {
  const ids = [...new Set(records.flatMap((record) => record.postings.flatMap((posting) => (posting.journalEntryId ? [posting.journalEntryId] : []))))];
  const entries = new Map<string, JournalEntry>();
  // A source may name more entries per record than fit one lookup: ask in lookups' worth.
  for (let start = 0; start < ids.length; start += PAGE_LIMIT_MAX) {
    for (const [id, entry] of await options.ledger.entries(lookupScope, ids.slice(start, start + PAGE_LIMIT_MAX))) entries.set(id, entry);
  }
  for (const record of records) {
    for (const posting of record.postings) {
      const base = { referenceType: source.referenceType, recordId: record.id, tenantId: record.tenantId, environment: record.environment, journalEntryId: posting.journalEntryId };
      if (posting.journalEntryId === null) {
        mismatches.add({ ...base, problem: 'journal_entry_not_recorded' });
        continue;
      }
      const entry = entries.get(posting.journalEntryId);
      if (!entry) {
        mismatches.add({ ...base, problem: 'journal_entry_not_found' });
        continue;
      }
      const differences = entryDifferences(posting, entry, record);
      if (differences) mismatches.add({ ...base, problem: 'journal_entry_differs', ...differences });
    }
  }
}

async function entriesPointAtRecords(options: BusinessRecordsCheckOptions, source: BusinessRecordSource, scope: ReconciliationScope | null, batchSize: number, mismatches: MismatchList): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await options.ledger.references(scope, source.referenceType, { cursor, limit: batchSize });
    const records = new Map((await source.byIds(scope, [...new Set(page.data.map((entry) => entry.reference.id))])).map((record) => [record.id, record]));
    for (const entry of page.data) {
      const base = { referenceType: source.referenceType, recordId: entry.reference.id, tenantId: entry.tenantId, environment: entry.environment, journalEntryId: entry.journalEntryId };
      const record = records.get(entry.reference.id);
      if (!record) mismatches.add({ ...base, problem: 'record_not_found' });
      else if (record.tenantId !== entry.tenantId || record.environment !== entry.environment) {
        mismatches.add({ ...base, problem: 'record_in_other_scope', recordTenantId: record.tenantId, recordEnvironment: record.environment });
      } else if (!record.finished) mismatches.add({ ...base, problem: 'record_not_finished', recordStatus: record.status });
      else if (!record.journalEntryIds.includes(entry.journalEntryId)) mismatches.add({ ...base, problem: 'record_names_another_entry', recordJournalEntryIds: record.journalEntryIds });
    }
    cursor = page.nextCursor;
  } while (cursor !== null && !mismatches.full);
}

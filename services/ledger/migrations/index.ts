import type { Migration } from '@wallet/kit';
import * as createLedger from './20261122120000_create_ledger';
import * as journalEntriesAcrossTenants from './20261124090000_journal_entries_across_tenants';
import * as indexJournalReferences from './20261201120000_index_journal_references';
import * as accountsLastPostedAt from './20261205120000_accounts_last_posted_at';
import * as reconciliationCheckpoints from './20261226120000_reconciliation_checkpoints';
import * as retentionIndexes from './20261229120000_retention_indexes';
import * as compactJournal from './20261230120000_compact_journal';
import * as fullRunRecordDigests from './20270101120000_full_run_record_digests';
import * as orderedJournalKeys from './20270102120000_ordered_journal_keys';
import * as journalStampRanges from './20270103120000_journal_stamp_ranges';
import * as journalStampReach from './20270107120000_journal_stamp_reach';
import * as outboxDeleteFunction from './20270110120000_outbox_delete_function';
import * as ledgerPartitions from './20270115120000_ledger_partitions';
import * as fullRunOwner from './20270120120000_full_run_owner';
import * as ledgerPartitionShards from './20270125120000_ledger_partition_shards';

export const migrations: Migration[] = [
  { name: '20261122120000_create_ledger', ...createLedger },
  { name: '20261124090000_journal_entries_across_tenants', ...journalEntriesAcrossTenants },
  { name: '20261201120000_index_journal_references', ...indexJournalReferences },
  { name: '20261205120000_accounts_last_posted_at', ...accountsLastPostedAt },
  { name: '20261226120000_reconciliation_checkpoints', ...reconciliationCheckpoints },
  { name: '20261229120000_retention_indexes', ...retentionIndexes },
  { name: '20261230120000_compact_journal', ...compactJournal },
  { name: '20270101120000_full_run_record_digests', ...fullRunRecordDigests },
  { name: '20270102120000_ordered_journal_keys', ...orderedJournalKeys },
  { name: '20270103120000_journal_stamp_ranges', ...journalStampRanges },
  { name: '20270107120000_journal_stamp_reach', ...journalStampReach },
  { name: '20270110120000_outbox_delete_function', ...outboxDeleteFunction },
  { name: '20270115120000_ledger_partitions', ...ledgerPartitions },
  { name: '20270120120000_full_run_owner', ...fullRunOwner },
  { name: '20270125120000_ledger_partition_shards', ...ledgerPartitionShards },
];

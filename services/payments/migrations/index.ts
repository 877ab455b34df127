import type { Migration } from '@wallet/kit';
import * as createOutboxAndInbox from './20261122120000_create_outbox_and_inbox';
import * as createFeeSchedules from './20261123140000_create_fee_schedules';
import * as createTenants from './20261123150000_create_tenants';
import * as createWallets from './20261123150100_create_wallets';
import * as createIdempotencyKeys from './20261123160000_create_idempotency_keys';
import * as createTransfers from './20261123170000_create_transfers';
import * as createDeposits from './20261123180000_create_deposits';
import * as indexReconciliation from './20261201120000_index_reconciliation';
import * as createPayoutCases from './20261202120000_create_payout_cases';
import * as createReconciliationRuns from './20261215120000_create_reconciliation_runs';
import * as createPayoutRails from './20261216120000_create_payout_rails';
import * as momoTransactionPerEnvironment from './20261228120000_momo_transaction_per_environment';
import * as reconciliationMarks from './20261229120000_reconciliation_marks';
import * as retentionIndexes from './20261229120000_retention_indexes';
import * as transfersStorage from './20261230120000_transfers_storage';
import * as operationalMetrics from './20270102120000_operational_metrics';
import * as transferReversals from './20270103120000_transfer_reversals';
import * as statementLineReads from './20270104120000_statement_line_reads';
import * as payoutCasesPending from './20270106120000_payout_cases_pending';
import * as depositsPendingSlipsSeq from './20270107120000_deposits_pending_slips_seq';
import * as outboxDeleteFunction from './20270110120000_outbox_delete_function';
import * as payoutRailLeases from './20270115120000_payout_rail_leases';
import * as outboxUnanswered from './20270125120000_outbox_unanswered';
import * as depositsSearch from './20270201120000_deposits_search';
import * as approvalPolicies from './20270205120000_approval_policies';
import * as statementMatches from './20270206120000_statement_matches';
import * as feeScheduleActors from './20270210120000_fee_schedule_actors';
import * as amountOrder from './20270212120000_amount_order';

export const migrations: Migration[] = [
  { name: '20261122120000_create_outbox_and_inbox', ...createOutboxAndInbox },
  { name: '20261123140000_create_fee_schedules', ...createFeeSchedules },
  { name: '20261123150000_create_tenants', ...createTenants },
  { name: '20261123150100_create_wallets', ...createWallets },
  { name: '20261123160000_create_idempotency_keys', ...createIdempotencyKeys },
  { name: '20261123170000_create_transfers', ...createTransfers },
  { name: '20261123180000_create_deposits', ...createDeposits },
  { name: '20261201120000_index_reconciliation', ...indexReconciliation },
  { name: '20261202120000_create_payout_cases', ...createPayoutCases },
  { name: '20261215120000_create_reconciliation_runs', ...createReconciliationRuns },
  { name: '20261216120000_create_payout_rails', ...createPayoutRails },
  { name: '20261228120000_momo_transaction_per_environment', ...momoTransactionPerEnvironment },
  { name: '20261229120000_retention_indexes', ...retentionIndexes },
  { name: '20261229120000_reconciliation_marks', ...reconciliationMarks },
  { name: '20261230120000_transfers_storage', ...transfersStorage },
  { name: '20270102120000_operational_metrics', ...operationalMetrics },
  { name: '20270103120000_transfer_reversals', ...transferReversals },
  { name: '20270104120000_statement_line_reads', ...statementLineReads },
  { name: '20270106120000_payout_cases_pending', ...payoutCasesPending },
  { name: '20270107120000_deposits_pending_slips_seq', ...depositsPendingSlipsSeq },
  { name: '20270110120000_outbox_delete_function', ...outboxDeleteFunction },
  { name: '20270115120000_payout_rail_leases', ...payoutRailLeases },
  { name: '20270125120000_outbox_unanswered', ...outboxUnanswered },
  { name: '20270201120000_deposits_search', ...depositsSearch },
  { name: '20270205120000_approval_policies', ...approvalPolicies },
  { name: '20270206120000_statement_matches', ...statementMatches },
  { name: '20270210120000_fee_schedule_actors', ...feeScheduleActors },
  { name: '20270212120000_amount_order', ...amountOrder },
];

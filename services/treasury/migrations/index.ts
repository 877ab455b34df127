import type { Migration } from '@wallet/kit';
import * as createOutboxAndInbox from './20261122120000_create_outbox_and_inbox';
import * as createFloatDeposits from './20261124120000_create_float_deposits';
import * as createWithdrawals from './20261217120000_create_withdrawals';
import * as createAnalytics from './20261218120000_create_analytics';
import * as createTenants from './20261228120000_create_tenants';
import * as reconciliationMarks from './20261229120000_reconciliation_marks';
import * as retentionIndexes from './20261229120000_retention_indexes';
import * as operationalMetrics from './20270102120000_operational_metrics';
import * as withdrawalsPending from './20270106120000_withdrawals_pending';
import * as outboxDeleteFunction from './20270110120000_outbox_delete_function';
import * as analyticsCaseTypeShape from './20270115120000_analytics_case_type_shape';
import * as outboxUnanswered from './20270125120000_outbox_unanswered';
import * as withdrawalRails from './20270201120000_withdrawal_rails';
import * as approvalPolicies from './20270205120000_approval_policies';
import * as amountOrder from './20270212120000_amount_order';

export const migrations: Migration[] = [
  { name: '20261122120000_create_outbox_and_inbox', ...createOutboxAndInbox },
  { name: '20261124120000_create_float_deposits', ...createFloatDeposits },
  { name: '20261217120000_create_withdrawals', ...createWithdrawals },
  { name: '20261218120000_create_analytics', ...createAnalytics },
  { name: '20261228120000_create_tenants', ...createTenants },
  { name: '20261229120000_retention_indexes', ...retentionIndexes },
  { name: '20261229120000_reconciliation_marks', ...reconciliationMarks },
  { name: '20270102120000_operational_metrics', ...operationalMetrics },
  { name: '20270106120000_withdrawals_pending', ...withdrawalsPending },
  { name: '20270110120000_outbox_delete_function', ...outboxDeleteFunction },
  { name: '20270115120000_analytics_case_type_shape', ...analyticsCaseTypeShape },
  { name: '20270125120000_outbox_unanswered', ...outboxUnanswered },
  { name: '20270201120000_withdrawal_rails', ...withdrawalRails },
  { name: '20270205120000_approval_policies', ...approvalPolicies },
  { name: '20270212120000_amount_order', ...amountOrder },
];

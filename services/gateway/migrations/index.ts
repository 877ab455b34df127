import type { Migration } from '@wallet/kit';
import * as createRequestNonces from './20261122130000_create_request_nonces';
import * as createRateLimitBuckets from './20261123120000_create_rate_limit_buckets';
import * as createRequestLogs from './20261123120100_create_request_logs';
import * as requestLogsStorage from './20261230120000_request_logs_storage';
import * as requestLogDays from './20270104120000_request_log_days';
import * as requestLogsCorrelationBtree from './20270105120000_request_logs_correlation_btree';

export const migrations: Migration[] = [
  { name: '20261122130000_create_request_nonces', ...createRequestNonces },
  { name: '20261123120000_create_rate_limit_buckets', ...createRateLimitBuckets },
  { name: '20261123120100_create_request_logs', ...createRequestLogs },
  { name: '20261230120000_request_logs_storage', ...requestLogsStorage },
  { name: '20270104120000_request_log_days', ...requestLogDays },
  { name: '20270105120000_request_logs_correlation_btree', ...requestLogsCorrelationBtree },
];

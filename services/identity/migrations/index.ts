import type { Migration } from '@wallet/kit';
import * as createTenants from './20261122120000_create_tenants';
import * as createTeamMembers from './20261122120100_create_team_members';
import * as createOutbox from './20261122120200_create_outbox';
import * as createAuditEvents from './20261123090000_create_audit_events';
import * as createApiKeys from './20261123100000_create_api_keys';
import * as createMomoProviders from './20261123100100_create_momo_providers';
import * as teamMembersOrderAndLogin from './20261123110000_team_members_order_and_login';
import * as createSessions from './20261123110100_create_sessions';
import * as createInbox from './20261123130000_create_inbox';
import * as tenantsUpdatedAt from './20261124090000_tenants_updated_at';
import * as createIdempotencyKeys from './20261228120000_create_idempotency_keys';
import * as retentionIndexes from './20261229120000_retention_indexes';
import * as idempotencyKeysInFlight from './20270102120000_idempotency_keys_in_flight';
import * as platformAuditEvents from './20270105120000_platform_audit_events';
import * as outboxDeleteFunction from './20270110120000_outbox_delete_function';
import * as createLoginThrottles from './20270111120000_create_login_throttles';
import * as createPlatformEventsAndWebhooks from './20270201120000_create_platform_events_and_webhooks';
import * as createReviewNotices from './20270205130000_create_review_notices';

export const migrations: Migration[] = [
  { name: '20261122120000_create_tenants', ...createTenants },
  { name: '20261122120100_create_team_members', ...createTeamMembers },
  { name: '20261122120200_create_outbox', ...createOutbox },
  { name: '20261123090000_create_audit_events', ...createAuditEvents },
  { name: '20261123100000_create_api_keys', ...createApiKeys },
  { name: '20261123100100_create_momo_providers', ...createMomoProviders },
  { name: '20261123110000_team_members_order_and_login', ...teamMembersOrderAndLogin },
  { name: '20261123110100_create_sessions', ...createSessions },
  { name: '20261123130000_create_inbox', ...createInbox },
  { name: '20261124090000_tenants_updated_at', ...tenantsUpdatedAt },
  { name: '20261228120000_create_idempotency_keys', ...createIdempotencyKeys },
  { name: '20261229120000_retention_indexes', ...retentionIndexes },
  { name: '20270102120000_idempotency_keys_in_flight', ...idempotencyKeysInFlight },
  { name: '20270105120000_platform_audit_events', ...platformAuditEvents },
  { name: '20270110120000_outbox_delete_function', ...outboxDeleteFunction },
  { name: '20270111120000_create_login_throttles', ...createLoginThrottles },
  { name: '20270201120000_create_platform_events_and_webhooks', ...createPlatformEventsAndWebhooks },
  { name: '20270205130000_create_review_notices', ...createReviewNotices },
];

import type { Migration } from '@wallet/kit';
import * as createTenants from './20261122120000_create_tenants';
import * as createTeamMembers from './20261122120100_create_team_members';
import * as createOutbox from './20261122120200_create_outbox';
import * as createAuditEvents from './20261123090000_create_audit_events';

export const migrations: Migration[] = [
  { name: '20261122120000_create_tenants', ...createTenants },
  { name: '20261122120100_create_team_members', ...createTeamMembers },
  { name: '20261122120200_create_outbox', ...createOutbox },
  { name: '20261123090000_create_audit_events', ...createAuditEvents },
];

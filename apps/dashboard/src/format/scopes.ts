import type { Scope } from '@wallet/contracts';

/** Each scope as what it lets its holder do: every scope has its words, or this does not compile. */
const SCOPE_WORDS: Record<Scope, string> = {
  'wallets:read': 'reading wallets, deposits and transfers',
  'wallets:create': 'opening wallets',
  'wallets:manage': 'freezing and unfreezing wallets',
  'transfers:create': 'sending and reversing transfers',
  'wallet:transfer': 'sending and reversing transfers',
  'wallet:deposit': 'submitting bank slips',
  'deposits:verify': 'verifying bank slips and importing statements',
  'payouts:create': 'requesting payouts',
  'payouts:read': 'reading payouts',
  'payouts:approve': 'approving and rejecting payouts',
  'treasury:read': 'reading the treasury',
  'treasury:write': 'recording float deposits and requesting withdrawals',
  'treasury:approve': 'approving and rejecting withdrawals',
  'fees:read': 'reading fee schedules',
  'fees:manage': 'changing fee schedules',
  'analytics:read': 'reading analytics and reconciliation',
  'request_logs:read': 'reading the request logs',
  'api_keys:manage': 'managing API keys',
  'webhooks:manage': 'managing webhook endpoints',
  'events:read': 'reading the event log',
  'providers:manage': 'managing mobile money providers',
  'team:manage': 'managing the team',
  'team:read': "reading team members' names",
  'audit:read': 'reading the audit trail',
  'journal:read': 'reading the journal and ledger accounts',
  'ledger:read': 'reading everything (every read scope)',
  'ledger:write': 'moving money (every money-moving scope)',
  'tenant:manage': 'everything the organization can do',
};

/** What a scope lets its holder do, in words; a name this app does not know is given as it is. */
export function scopeInWords(scope: string): string {
  return (SCOPE_WORDS as Record<string, string | undefined>)[scope] ?? scope;
}

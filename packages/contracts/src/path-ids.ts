import { type IdKind, idPattern } from './ids';

/** A parameter whose name says its kind. */
const PARAMETER_KINDS: Readonly<Record<string, IdKind>> = {
  tenantId: 'tenant',
  walletId: 'wallet',
  memberId: 'user',
  scheduleId: 'feeSchedule',
  ruleId: 'feeRule',
  keyId: 'apiKey',
  journalEntryId: 'journalEntry',
  accountId: 'account',
};

/** An `{id}` parameter takes the kind of the collection it follows. */
const COLLECTION_KINDS: Readonly<Record<string, IdKind>> = {
  tenants: 'tenant',
  organizations: 'tenant',
  wallets: 'wallet',
  transfers: 'transfer',
  deposits: 'deposit',
  cases: 'payoutCase',
  payouts: 'payoutCase',
  withdrawals: 'payoutCase',
  'float-deposits': 'floatDeposit',
  'fee-schedules': 'feeSchedule',
  'api-keys': 'apiKey',
  'momo-providers': 'momoProvider',
  journal: 'journalEntry',
  runs: 'reconciliationRun',
  'dead-letters': 'deadLetter',
  events: 'event',
  'webhook-endpoints': 'webhookEndpoint',
  matches: 'statementMatch',
};

export interface PathId {
  name: string;
  kind: IdKind;
  pattern: RegExp;
}

/**
 * The id kind of every parameter of a path template, in order: `/v1/wallets/{id}/entries`
 * takes a wallet id. Every path parameter of the API is an id, so one of another shape names
 * nothing and is a 404 before any look-up. A template whose parameter has no known kind throws:
 * a new route must say what its ids are.
 */
export function pathIdsOf(template: string): PathId[] {
  const segments = template.split('/');
  return segments.flatMap((segment, index) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (name === undefined) return [];
    const kind = PARAMETER_KINDS[name] ?? (name === 'id' ? COLLECTION_KINDS[segments[index - 1] ?? ''] : undefined);
    if (kind === undefined) throw new Error(`path parameter {${name}} of ${template} has no id kind`);
    return [{ name, kind, pattern: idPattern(kind) }];
  });
}

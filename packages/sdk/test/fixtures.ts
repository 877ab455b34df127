/** Bodies that satisfy the contracts' success schemas. */

export const TENANT = {
  id: 'tn_01JD4Z0T9Q6W3M8V2K7N5R1X4B',
  name: 'Acme Kampala',
  slug: 'acme-kampala',
  config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX', 'USD'], maxTransactionAmount: '5000000' },
  createdAt: '2026-11-22T10:00:00.000Z',
};

export const ORGANIZATION = { ...TENANT, admin: null };

export function journalEntry(id: string) {
  return {
    id,
    kind: 'transfer',
    tenantId: TENANT.id,
    environment: 'test',
    reference: { type: 'transfer', id: 'tx_01' },
    reversesEntryId: null,
    lines: [
      { accountId: 'acc_1', accountName: 'wallet:alice', walletId: 'wl_a', direction: 'DR', amount: '100.10', currencyCode: 'USD' },
      { accountId: 'acc_2', accountName: 'wallet:bob', walletId: 'wl_b', direction: 'CR', amount: '100.10', currencyCode: 'USD' },
    ],
    createdAt: '2026-11-22T10:00:00.000Z',
  };
}

export function auditEvent(id: string) {
  return {
    id,
    action: 'api_key.created',
    actorType: 'user',
    actorId: 'usr_1',
    targetType: 'api_key',
    targetId: 'ak_1',
    metadata: {},
    createdAt: '2026-11-22T10:00:00.000Z',
  };
}

export const TEAM_MEMBER = {
  id: 'usr_01',
  tenantId: TENANT.id,
  name: 'Ada Admin',
  email: 'ada@example.com',
  orgRole: 'org-admin',
  status: 'active',
  createdAt: '2026-11-22T10:00:00.000Z',
};

export const SESSION = { token: 'sess_abc', expiresAt: '2026-11-23T10:00:00.000Z', environment: 'live', member: TEAM_MEMBER };

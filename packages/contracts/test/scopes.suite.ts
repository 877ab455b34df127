import { hasScope } from '../src/scopes';

describe('hasScope', () => {
  it('grants a scope held by name and nothing else', () => {
    expect(hasScope(['wallets:read'], 'wallets:read')).toBe(true);
    expect(hasScope(['wallets:read'], 'wallets:create')).toBe(false);
    expect(hasScope([], 'wallets:read')).toBe(false);
  });

  it('treats wallet:transfer as an alias of transfers:create, both ways', () => {
    expect(hasScope(['wallet:transfer'], 'transfers:create')).toBe(true);
    expect(hasScope(['transfers:create'], 'wallet:transfer')).toBe(true);
    expect(hasScope(['wallet:transfer'], 'wallet:deposit')).toBe(false);
  });

  describe('ledger:read umbrella', () => {
    it.each([
      'ledger:read',
      'wallets:read',
      'payouts:read',
      'treasury:read',
      'fees:read',
      'analytics:read',
      'request_logs:read',
      'audit:read',
    ])('covers %s', (scope) => {
      expect(hasScope(['ledger:read'], scope)).toBe(true);
    });

    it.each(['wallets:create', 'transfers:create', 'payouts:approve', 'api_keys:manage', 'team:manage', 'ledger:write', 'tenant:manage'])(
      'does not cover %s',
      (scope) => {
        expect(hasScope(['ledger:read'], scope)).toBe(false);
      },
    );
  });

  describe('ledger:write umbrella', () => {
    it.each([
      'ledger:write',
      'wallets:create',
      'transfers:create',
      'wallet:transfer',
      'wallet:deposit',
      'payouts:create',
      'treasury:write',
    ])('covers %s', (scope) => {
      expect(hasScope(['ledger:write'], scope)).toBe(true);
    });

    it.each([
      'wallets:read',
      'ledger:read',
      'wallets:manage',
      'deposits:verify',
      'payouts:approve',
      'treasury:approve',
      'fees:manage',
      'tenant:manage',
    ])('does not cover %s', (scope) => {
      expect(hasScope(['ledger:write'], scope)).toBe(false);
    });
  });

  it.each([
    'wallets:read',
    'wallets:manage',
    'transfers:create',
    'wallet:transfer',
    'payouts:approve',
    'treasury:approve',
    'api_keys:manage',
    'team:manage',
    'ledger:read',
    'ledger:write',
  ])('tenant:manage covers %s', (scope) => {
    expect(hasScope(['tenant:manage'], scope)).toBe(true);
  });

  it('no scope is an umbrella for the umbrellas above it', () => {
    expect(hasScope(['wallets:read', 'wallets:create', 'transfers:create'], 'ledger:read')).toBe(false);
    expect(hasScope(['wallets:read', 'wallets:create', 'transfers:create'], 'ledger:write')).toBe(false);
    expect(hasScope(['ledger:read', 'ledger:write'], 'tenant:manage')).toBe(false);
  });

  it('grants when any one of several scopes does', () => {
    expect(hasScope(['wallets:read', 'ledger:write'], 'payouts:create')).toBe(true);
  });

  it('does not read the system token scope * as a tenant grant', () => {
    expect(hasScope(['*'], 'wallets:read')).toBe(false);
  });
});

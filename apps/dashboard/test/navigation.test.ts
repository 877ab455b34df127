import { depositRoutes, payoutRoutes, ROLE_SCOPES, treasuryRoutes, walletRoutes, withdrawalRoutes } from '@wallet/contracts';
import { visibleNavigation } from '../src/app/navigation';
import { canCall } from '../src/auth/scopes';

const labels = (scopes: readonly string[]) => visibleNavigation(scopes).map((item) => item.label);

describe('navigation by scope', () => {
  it("shows each role the screens its scopes can read, from the routes' declared scopes", () => {
    const every = ['Overview', 'Wallets', 'Deposits', 'Transfers', 'Payouts', 'Approvals', 'Treasury'];
    expect(labels(ROLE_SCOPES['org-admin'])).toEqual(every);
    expect(labels(ROLE_SCOPES['finance-viewer'])).toEqual(every);
    expect(labels(ROLE_SCOPES.observer)).toEqual(every);
    expect(labels(ROLE_SCOPES.operator)).toEqual(every);
    expect(labels(ROLE_SCOPES.approver)).toEqual(every);
    // ledger:read is the umbrella of every read scope: the developer's role sees the overview too.
    expect(labels(ROLE_SCOPES.developer)).toEqual(every);
    expect(labels(ROLE_SCOPES.user)).toEqual([]);
    expect(labels(['wallets:read'])).toEqual(['Wallets', 'Deposits', 'Transfers']);
    expect(labels(['payouts:read'])).toEqual(['Payouts', 'Approvals']);
    expect(labels(['treasury:read'])).toEqual(['Overview', 'Approvals', 'Treasury']);
    expect(labels(['analytics:read'])).toEqual(['Overview']);
    expect(labels(['api_keys:manage'])).toEqual([]);
  });

  it('offers freezing only to scopes that cover wallets:manage', () => {
    expect(canCall(ROLE_SCOPES.operator, walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES['org-admin'], walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, walletRoutes.freeze)).toBe(false);
    expect(canCall(['ledger:read'], walletRoutes.list)).toBe(true);
  });

  it('offers makers the requests and checkers the decisions, by the routes\' scopes', () => {
    expect(canCall(ROLE_SCOPES.operator, payoutRoutes.create)).toBe(true);
    expect(canCall(ROLE_SCOPES.operator, payoutRoutes.approve)).toBe(false);
    expect(canCall(ROLE_SCOPES.operator, withdrawalRoutes.create)).toBe(true);
    expect(canCall(ROLE_SCOPES.operator, depositRoutes.importStatement)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, payoutRoutes.approve)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, withdrawalRoutes.reject)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, payoutRoutes.create)).toBe(false);
    expect(canCall(ROLE_SCOPES.approver, treasuryRoutes.createFloatDeposit)).toBe(false);
    expect(canCall(ROLE_SCOPES.observer, depositRoutes.verify)).toBe(false);
  });
});

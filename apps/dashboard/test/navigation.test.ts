import { reconciliationRoutes, ROLE_SCOPES, walletRoutes } from '@wallet/contracts';
import { visibleNavigation } from '../src/app/navigation';
import { canCall } from '../src/auth/scopes';

const labels = (scopes: readonly string[]) => visibleNavigation(scopes).map((item) => item.label);

describe('navigation by scope', () => {
  it("shows each role the screens its scopes can read, from the routes' declared scopes", () => {
    const all = ['Overview', 'Wallets', 'Journal', 'Ledger accounts', 'Reconciliation', 'Fees'];
    expect(labels(ROLE_SCOPES['org-admin'])).toEqual(all);
    expect(labels(ROLE_SCOPES['finance-viewer'])).toEqual(all);
    // No ledger:read nor fees:read: the checks (analytics:read) but not the books themselves.
    expect(labels(ROLE_SCOPES.observer)).toEqual(['Overview', 'Wallets', 'Reconciliation']);
    // ledger:read is the umbrella of every read scope: the developer's role sees the overview too.
    expect(labels(ROLE_SCOPES.developer)).toEqual(all);
    expect(labels(ROLE_SCOPES.user)).toEqual([]);
    expect(labels(['wallets:read'])).toEqual(['Wallets']);
    expect(labels(['analytics:read'])).toEqual(['Overview', 'Reconciliation']);
    expect(labels(['fees:read'])).toEqual(['Fees']);
    expect(labels(['api_keys:manage'])).toEqual([]);
  });

  it('offers freezing only to scopes that cover wallets:manage', () => {
    expect(canCall(ROLE_SCOPES.operator, walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES['org-admin'], walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, walletRoutes.freeze)).toBe(false);
    expect(canCall(['ledger:read'], walletRoutes.list)).toBe(true);
  });

  it("offers a full reconciliation run only to the tenant's admin, and following one to whoever reads the checks", () => {
    expect(canCall(ROLE_SCOPES['org-admin'], reconciliationRoutes.startTenantRun)).toBe(true);
    expect(canCall(ROLE_SCOPES['finance-viewer'], reconciliationRoutes.startTenantRun)).toBe(false);
    expect(canCall(ROLE_SCOPES['finance-viewer'], reconciliationRoutes.getTenantRun)).toBe(true);
    expect(canCall(ROLE_SCOPES.observer, reconciliationRoutes.getTenantRun)).toBe(true);
  });
});

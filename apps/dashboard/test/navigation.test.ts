import { ROLE_SCOPES, walletRoutes } from '@wallet/contracts';
import { visibleNavigation } from '../src/app/navigation';
import { canCall } from '../src/auth/scopes';

const labels = (scopes: readonly string[]) => visibleNavigation(scopes).map((item) => item.label);

describe('navigation by scope', () => {
  it("shows each role the screens its scopes can read, from the routes' declared scopes", () => {
    expect(labels(ROLE_SCOPES['org-admin'])).toEqual(['Overview', 'Wallets']);
    expect(labels(ROLE_SCOPES['finance-viewer'])).toEqual(['Overview', 'Wallets']);
    expect(labels(ROLE_SCOPES.observer)).toEqual(['Overview', 'Wallets']);
    // ledger:read is the umbrella of every read scope: the developer's role sees the overview too.
    expect(labels(ROLE_SCOPES.developer)).toEqual(['Overview', 'Wallets']);
    expect(labels(ROLE_SCOPES.user)).toEqual([]);
    expect(labels(['wallets:read'])).toEqual(['Wallets']);
    expect(labels(['analytics:read'])).toEqual(['Overview']);
    expect(labels(['api_keys:manage'])).toEqual([]);
  });

  it('offers freezing only to scopes that cover wallets:manage', () => {
    expect(canCall(ROLE_SCOPES.operator, walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES['org-admin'], walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, walletRoutes.freeze)).toBe(false);
    expect(canCall(['ledger:read'], walletRoutes.list)).toBe(true);
  });
});

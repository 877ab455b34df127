import { ROLE_SCOPES, walletRoutes } from '@wallet/contracts';
import { visibleNavigation } from '../src/app/navigation';
import { canCall } from '../src/auth/scopes';

const labels = (scopes: readonly string[]) => visibleNavigation(scopes).map((item) => item.label);

describe('navigation by scope', () => {
  it("shows each role the screens its scopes can read, from the routes' declared scopes", () => {
    expect(labels(ROLE_SCOPES['org-admin'])).toEqual(['Overview', 'Wallets', 'Team', 'Audit', 'Developers']);
    // Request logs without API keys: the developers screen shows its logs tab only.
    expect(labels(ROLE_SCOPES['finance-viewer'])).toEqual(['Overview', 'Wallets', 'Audit', 'Developers']);
    expect(labels(ROLE_SCOPES.observer)).toEqual(['Overview', 'Wallets']);
    // ledger:read is the umbrella of every read scope: the developer's role sees the overview and the audit trail too.
    expect(labels(ROLE_SCOPES.developer)).toEqual(['Overview', 'Wallets', 'Audit', 'Developers']);
    expect(labels(ROLE_SCOPES.user)).toEqual([]);
    expect(labels(['wallets:read'])).toEqual(['Wallets']);
    expect(labels(['analytics:read'])).toEqual(['Overview']);
    expect(labels(['api_keys:manage'])).toEqual(['Developers']);
    // team:manage is no read scope: the umbrella of reads does not open the team screen.
    expect(labels(['ledger:read'])).not.toContain('Team');
  });

  it('offers freezing only to scopes that cover wallets:manage', () => {
    expect(canCall(ROLE_SCOPES.operator, walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES['org-admin'], walletRoutes.freeze)).toBe(true);
    expect(canCall(ROLE_SCOPES.approver, walletRoutes.freeze)).toBe(false);
    expect(canCall(['ledger:read'], walletRoutes.list)).toBe(true);
  });
});

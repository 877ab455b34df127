import {
  depositRoutes,
  payoutRoutes,
  reconciliationRoutes,
  ROLE_SCOPES,
  treasuryRoutes,
  walletRoutes,
  withdrawalRoutes,
} from '@wallet/contracts';
import { visibleNavigation } from '../src/app/navigation';
import { canCall } from '../src/auth/scopes';

const labels = (scopes: readonly string[]) => visibleNavigation(scopes).map((item) => item.label);

describe('navigation by scope', () => {
  it("shows each role the screens its scopes can read, from the routes' declared scopes", () => {
    const money = ['Deposits', 'Transfers', 'Payouts', 'Approvals', 'Treasury'];
    const books = ['Journal', 'Ledger accounts', 'Reconciliation', 'Fees'];
    expect(labels(ROLE_SCOPES['org-admin'])).toEqual(['Overview', 'Wallets', ...money, ...books, 'Team', 'Audit', 'Developers']);
    // Request logs without API keys: the developers screen shows its logs tab only.
    expect(labels(ROLE_SCOPES['finance-viewer'])).toEqual(['Overview', 'Wallets', ...money, ...books, 'Audit', 'Developers']);
    // No ledger:read nor fees:read: the checks (analytics:read) but not the books themselves.
    expect(labels(ROLE_SCOPES.observer)).toEqual(['Overview', 'Wallets', ...money, 'Reconciliation']);
    // Least privilege: no role but the finance viewer (and the org-admin) reads the audit trail or the request logs.
    expect(labels(ROLE_SCOPES.developer)).toEqual(['Wallets', 'Deposits', 'Transfers', 'Journal', 'Ledger accounts', 'Developers']);
    expect(labels(ROLE_SCOPES.operator)).toEqual(['Overview', 'Wallets', ...money, ...books]);
    expect(labels(ROLE_SCOPES.approver)).toEqual(['Overview', 'Wallets', ...money, 'Journal', 'Ledger accounts', 'Reconciliation']);
    // The umbrella of reads still opens every read screen to a key that holds it.
    expect(labels(['ledger:read'])).toEqual(['Overview', 'Wallets', ...money, ...books, 'Audit', 'Developers']);
    expect(labels(ROLE_SCOPES.user)).toEqual([]);
    expect(labels(['wallets:read'])).toEqual(['Wallets', 'Deposits', 'Transfers']);
    expect(labels(['payouts:read'])).toEqual(['Payouts', 'Approvals']);
    expect(labels(['treasury:read'])).toEqual(['Overview', 'Approvals', 'Treasury']);
    expect(labels(['analytics:read'])).toEqual(['Overview', 'Reconciliation']);
    expect(labels(['fees:read'])).toEqual(['Fees']);
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

  it("offers makers the requests and checkers the decisions, by the routes' scopes", () => {
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

  it("offers a full reconciliation run only to the tenant's admin, and following one to whoever reads the checks", () => {
    expect(canCall(ROLE_SCOPES['org-admin'], reconciliationRoutes.startTenantRun)).toBe(true);
    expect(canCall(ROLE_SCOPES['finance-viewer'], reconciliationRoutes.startTenantRun)).toBe(false);
    expect(canCall(ROLE_SCOPES['finance-viewer'], reconciliationRoutes.getTenantRun)).toBe(true);
    expect(canCall(ROLE_SCOPES.observer, reconciliationRoutes.getTenantRun)).toBe(true);
  });
});

import BigNumber from 'bignumber.js';
import { ACCOUNTS, formatAmount, type LedgerAccount, type TreasuryBalance, type TreasuryBalances } from '@wallet/contracts';
import type { LedgerReads, LedgerScope } from '@wallet/money-commands';

/** The tenant accounts each balance column reads; the pool is named per currency. */
const SHARED_ACCOUNTS = {
  tenantFeeRevenue: ACCOUNTS.feeRevenue.name,
  platformCommission: ACCOUNTS.platformCommission.name,
  suspense: ACCOUNTS.suspense.name,
  payoutClearing: ACCOUNTS.payoutClearing.name,
} as const;

type Column = keyof typeof SHARED_ACCOUNTS | 'operatingFloat';

/**
 * `GET /v1/admin/money/balances`: the ledger's balances of the tenant's operating accounts, one
 * row per currency the tenant has them in (provisioned at tenant creation). A currency whose
 * account is missing shows zero for it rather than hiding the row.
 */
export class BalancesService {
  constructor(private readonly ledger: LedgerReads) {}

  async balances(scope: LedgerScope): Promise<TreasuryBalances> {
    const shared = await Promise.all(
      (Object.entries(SHARED_ACCOUNTS) as Array<[keyof typeof SHARED_ACCOUNTS, string]>).map(async ([column, name]) => ({
        column,
        accounts: await this.ledger.accountsNamed(scope, name),
      })),
    );
    const rows = new Map<string, Map<Column, BigNumber>>();
    const add = (column: Column, account: LedgerAccount): void => {
      const row = rows.get(account.currencyCode) ?? new Map<Column, BigNumber>();
      row.set(column, (row.get(column) ?? new BigNumber(0)).plus(account.balance));
      rows.set(account.currencyCode, row);
    };
    for (const { column, accounts } of shared) for (const account of accounts) add(column, account);
    const pools = await Promise.all(
      [...rows.keys()].map((currencyCode) => this.ledger.accountsNamed(scope, ACCOUNTS.pool.nameFor(currencyCode))),
    );
    for (const accounts of pools) for (const account of accounts) add('operatingFloat', account);

    const data: TreasuryBalance[] = [...rows.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currencyCode, row]) => {
        const amount = (column: Column): string => formatAmount(row.get(column) ?? new BigNumber(0), currencyCode);
        return {
          currencyCode,
          operatingFloat: amount('operatingFloat'),
          tenantFeeRevenue: amount('tenantFeeRevenue'),
          platformCommission: amount('platformCommission'),
          suspense: amount('suspense'),
          payoutClearing: amount('payoutClearing'),
        };
      });
    return { data };
  }
}

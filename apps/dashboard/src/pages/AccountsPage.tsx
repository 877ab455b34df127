import { Badge, Text } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type LedgerAccount, ledgerRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { accountFiltersSchema } from '../books/journal';
import { AccountLink, WalletLink } from '../components/BooksLinks';
import { DateTime } from '../components/DateTime';
import { type FilterField, FilterForm } from '../components/FilterForm';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { listKeys } from '../app/filters';

const routeApi = getRouteApi('/_session/accounts');

const helper = columnsOf<LedgerAccount>();
export const accountColumns = helper.columns([
  helper.accessor('name', {
    header: 'Account',
    cell: (info) => <AccountLink name={info.getValue()} walletId={info.row.original.walletId} />,
  }),
  helper.accessor('currencyCode', { header: 'Currency' }),
  helper.accessor('balance', {
    header: 'Balance',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('normalSide', { header: 'Normal side', cell: (info) => (info.getValue() === 'DR' ? 'Debit' : 'Credit') }),
  helper.accessor('walletId', {
    header: 'Wallet',
    cell: (info) => {
      const id = info.getValue();
      return id ? <WalletLink id={id} /> : <Text size="xs">—</Text>;
    },
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => (
      <Badge color={info.getValue() === 'frozen' ? 'blue' : 'green'} variant="light">
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('createdAt', { header: 'Opened', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const ACCOUNT_FILTERS: readonly FilterField[] = [
  { name: 'name', label: 'Account name', placeholder: 'wallet:owner-1', width: 240 },
  { name: 'currencyCode', label: 'Currency', placeholder: 'USD', upper: true, width: 110 },
  { name: 'walletId', label: 'Wallet id', width: 240 },
];

export function AccountsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(filters);
  return (
    <>
      <PageTitle>Ledger accounts</PageTitle>
      <FilterForm
        key={keys.form}
        label="Filter ledger accounts"
        schema={accountFiltersSchema}
        fields={ACCOUNT_FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
      />
      <PagedTable
        key={keys.list}
        caption="Ledger accounts with their balances"
        queryKey={['ledger-accounts', filters]}
        fetchPage={(page, signal) => api.call(ledgerRoutes.accounts, { query: { ...filters, ...page }, signal })}
        columns={accountColumns}
        rowId={(account) => account.id}
        emptyTitle="No ledger accounts"
        emptyDescription={!keys.filtered ? 'Accounts open as money first moves through them.' : 'No account matches these filters.'}
      />
    </>
  );
}

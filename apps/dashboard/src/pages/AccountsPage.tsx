import { Badge, Button, Group, Paper, Text, TextInput } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type LedgerAccount, ledgerRoutes } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { type AccountFilters, accountFiltersSchema } from '../books/journal';
import { AccountLink, WalletLink } from '../components/BooksLinks';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';

const routeApi = getRouteApi('/_session/accounts');

const helper = columnsOf<LedgerAccount>();
export const accountColumns = helper.columns([
  helper.accessor('name', { header: 'Account', cell: (info) => <AccountLink name={info.getValue()} walletId={info.row.original.walletId} /> }),
  helper.accessor('currencyCode', { header: 'Currency' }),
  helper.accessor('balance', { header: 'Balance', cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} /> }),
  helper.accessor('normalSide', { header: 'Normal side', cell: (info) => (info.getValue() === 'DR' ? 'Debit' : 'Credit') }),
  helper.accessor('walletId', { header: 'Wallet', cell: (info) => { const id = info.getValue(); return id ? <WalletLink id={id} /> : <Text size="xs">—</Text>; } }),
  helper.accessor('status', { header: 'Status', cell: (info) => <Badge color={info.getValue() === 'frozen' ? 'blue' : 'green'} variant="light">{info.getValue()}</Badge> }),
  helper.accessor('createdAt', { header: 'Opened', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

function AccountFilterForm({ filters, onApply }: { filters: AccountFilters; onApply: (filters: AccountFilters) => void }) {
  const [name, setName] = useState(filters.name ?? '');
  const [currencyCode, setCurrencyCode] = useState(filters.currencyCode ?? '');
  const [walletId, setWalletId] = useState(filters.walletId ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const apply = () => {
    const checked = checkForm(accountFiltersSchema, { name: optionalText(name), currencyCode: optionalText(currencyCode)?.toUpperCase(), walletId: optionalText(walletId) });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" mb="md" component="search" aria-label="Filter ledger accounts">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <Group align="flex-start" wrap="wrap">
          <TextInput label="Account name" placeholder="wallet:owner-1" value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} w={240} />
          <TextInput label="Currency" placeholder="USD" value={currencyCode} onChange={(event) => setCurrencyCode(event.currentTarget.value)} error={errors.currencyCode} w={110} />
          <TextInput label="Wallet id" value={walletId} onChange={(event) => setWalletId(event.currentTarget.value)} error={errors.walletId} w={240} />
          <Group gap="xs" mt={25}>
            <Button type="submit">Search</Button>
            <Button variant="subtle" onClick={() => onApply({})}>
              Clear
            </Button>
          </Group>
        </Group>
      </form>
    </Paper>
  );
}

export function AccountsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const filterKey = JSON.stringify(filters);
  return (
    <>
      <PageTitle>Ledger accounts</PageTitle>
      <AccountFilterForm key={`form:${filterKey}`} filters={filters} onApply={(next) => void navigate({ search: next })} />
      <PagedTable
        key={`list:${filterKey}`}
        caption="Ledger accounts with their balances"
        queryKey={['ledger-accounts', filters]}
        fetchPage={(page, signal) => api.call(ledgerRoutes.accounts, { query: { ...filters, ...page }, signal })}
        columns={accountColumns}
        rowId={(account) => account.id}
        emptyTitle="No ledger accounts"
        emptyDescription={filterKey === '{}' ? 'Accounts open as money first moves through them.' : 'No account matches these filters.'}
      />
    </>
  );
}

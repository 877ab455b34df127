import { Badge, Button, Group, Paper, Select, TextInput } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type Wallet, WALLET_OWNER_TYPES, WALLET_STATUSES, walletRoutes } from '@wallet/contracts';
import { useState } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { walletFiltersSchema } from '../app/filters';
import { DateTime } from '../components/DateTime';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';

const routeApi = getRouteApi('/_session/wallets');
type WalletFilters = z.infer<typeof walletFiltersSchema>;

const helper = columnsOf<Wallet>();
const columns = helper.columns([
  helper.accessor('id', {
    header: 'Wallet',
    cell: (info) => (
      <RouterAnchor to="/wallets/$walletId" params={{ walletId: info.getValue() }} ff="monospace" size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  helper.accessor('ownerId', { header: 'Owner', cell: (info) => `${info.row.original.ownerType} · ${info.getValue()}` }),
  helper.accessor('currencyCode', { header: 'Currency' }),
  helper.accessor('balance', { header: 'Balance', cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} /> }),
  helper.accessor('status', { header: 'Status', cell: (info) => <Badge color={info.getValue() === 'frozen' ? 'blue' : 'green'} variant="light">{info.getValue()}</Badge> }),
  helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const anyOf = (values: readonly string[]) => [{ value: '', label: 'Any' }, ...values.map((value) => ({ value, label: value }))];

/** The filter form: its values become the URL's search, checked by the API's own query schema. */
function WalletFilterForm({ filters, onApply }: { filters: WalletFilters; onApply: (filters: WalletFilters) => void }) {
  const [ownerType, setOwnerType] = useState(filters.ownerType ?? '');
  const [ownerId, setOwnerId] = useState(filters.ownerId ?? '');
  const [currencyCode, setCurrencyCode] = useState(filters.currencyCode ?? '');
  const [status, setStatus] = useState(filters.status ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const apply = () => {
    const checked = checkForm(walletFiltersSchema, { ownerType: optionalText(ownerType) as WalletFilters['ownerType'], ownerId: optionalText(ownerId), currencyCode: optionalText(currencyCode)?.toUpperCase(), status: optionalText(status) as WalletFilters['status'] });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" mb="md" component="search" aria-label="Filter wallets">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Owner id" value={ownerId} onChange={(event) => setOwnerId(event.currentTarget.value)} error={errors.ownerId} />
          <Select label="Owner type" data={anyOf(WALLET_OWNER_TYPES)} value={ownerType} onChange={(value) => setOwnerType(value ?? '')} allowDeselect={false} w={140} />
          <TextInput label="Currency" placeholder="USD" value={currencyCode} onChange={(event) => setCurrencyCode(event.currentTarget.value)} error={errors.currencyCode} w={110} />
          <Select label="Status" data={anyOf(WALLET_STATUSES)} value={status} onChange={(value) => setStatus(value ?? '')} allowDeselect={false} w={130} />
          <Button type="submit">Search</Button>
          <Button variant="subtle" onClick={() => onApply({})}>
            Clear
          </Button>
        </Group>
      </form>
    </Paper>
  );
}

export function WalletsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const filterKey = JSON.stringify(filters);
  return (
    <>
      <PageTitle>Wallets</PageTitle>
      <WalletFilterForm key={`form:${filterKey}`} filters={filters} onApply={(next) => void navigate({ search: next })} />
      <PagedTable
        // A new filter is a new list: its paging starts again from the first page. (Sibling keys must differ: React keeps both of two equal ones.)
        key={`list:${filterKey}`}
        caption="Wallets"
        queryKey={['wallets', filters]}
        fetchPage={(page, signal) => api.call(walletRoutes.list, { query: { ...filters, ...page }, signal })}
        columns={columns}
        rowId={(wallet) => wallet.id}
        emptyTitle="No wallets"
        emptyDescription={filterKey === '{}' ? 'Wallets appear here once they are created through the API.' : 'No wallet matches these filters.'}
      />
    </>
  );
}

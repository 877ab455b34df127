import { Badge } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type Wallet, WALLET_OWNER_TYPES, WALLET_STATUSES, walletRoutes, exportRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { PageTitle } from '../app/Shell';
import { listKeys, walletFiltersSchema } from '../app/filters';
import { DateTime } from '../components/DateTime';
import { ExportLink } from '../components/ExportLink';
import { CREATED_RANGE_FIELDS, type FilterField, FilterForm } from '../components/FilterForm';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, orderedCaption, PagedTable, searchOrdering } from '../components/PagedTable';

const routeApi = getRouteApi('/_session/wallets');

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
  helper.accessor('balance', {
    header: 'Balance',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => (
      <Badge color={info.getValue() === 'frozen' ? 'blue' : 'green'} variant="light">
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const WALLET_FILTERS: readonly FilterField[] = [
  { name: 'ownerId', label: 'Owner id' },
  { name: 'ownerType', label: 'Owner type', options: WALLET_OWNER_TYPES, width: 140 },
  { name: 'currencyCode', label: 'Currency', placeholder: 'USD', upper: true, width: 110 },
  { name: 'status', label: 'Status', options: WALLET_STATUSES, width: 130 },
  ...CREATED_RANGE_FIELDS,
];

export function WalletsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(filters);
  return (
    <>
      <PageTitle>Wallets</PageTitle>
      <FilterForm
        key={keys.form}
        label="Filter wallets"
        schema={walletFiltersSchema}
        fields={WALLET_FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
        extra={<ExportLink route={exportRoutes.wallets} filters={filters} />}
      />
      <PagedTable
        key={keys.list}
        caption={orderedCaption('Wallets', filters.sort)}
        ordering={searchOrdering(filters, { createdAt: 'createdAt' }, (search) => void navigate({ search }))}
        queryKey={['wallets', filters]}
        fetchPage={fillingPages((page, signal) => api.call(walletRoutes.list, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(wallet) => wallet.id}
        emptyTitle="No wallets"
        emptyDescription={
          !keys.filtered ? 'Wallets appear here once they are created through the API.' : 'No wallet matches these filters.'
        }
      />
    </>
  );
}

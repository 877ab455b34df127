import { Stack } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type Transfer, TRANSFER_STATUSES, transferRoutes, exportRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { transferFiltersSchema } from '../app/money-filters';
import { PageTitle } from '../app/Shell';
import { DateTime } from '../components/DateTime';
import { ExportLink } from '../components/ExportLink';
import { CREATED_RANGE_FIELDS, FilterForm } from '../components/FilterForm';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, MONEY_SORT_KEYS, orderedCaption, PagedTable, searchOrdering } from '../components/PagedTable';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';
import { listKeys } from '../app/filters';

const routeApi = getRouteApi('/_session/transfers');

const helper = columnsOf<Transfer>();
const columns = helper.columns([
  helper.accessor('id', {
    header: 'Transfer',
    cell: (info) => (
      <RouterAnchor to="/transfers/$transferId" params={{ transferId: info.getValue() }} ff="monospace" size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  helper.accessor('fromWalletId', { header: 'From', cell: (info) => <WalletLink walletId={info.getValue()} /> }),
  helper.accessor('toWalletId', { header: 'To', cell: (info) => <WalletLink walletId={info.getValue()} /> }),
  helper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('fee', {
    header: 'Fee',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
  helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const FILTERS = [
  { name: 'walletId', label: 'Wallet id (either side)', placeholder: 'wl_…', width: 220 },
  { name: 'status', label: 'Status', options: TRANSFER_STATUSES },
  ...CREATED_RANGE_FIELDS,
] as const;

export function TransfersPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(filters);
  return (
    <Stack gap={0}>
      <PageTitle>Transfers</PageTitle>
      <FilterForm
        key={keys.form}
        label="Filter transfers"
        schema={transferFiltersSchema}
        fields={FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
        extra={<ExportLink route={exportRoutes.transfers} filters={filters} />}
      />
      <PagedTable
        key={keys.list}
        caption={orderedCaption('Transfers', filters.sort)}
        ordering={searchOrdering(filters, MONEY_SORT_KEYS, (search) => void navigate({ search }))}
        queryKey={['transfers', filters]}
        fetchPage={fillingPages((page, signal) => api.call(transferRoutes.list, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(transfer) => transfer.id}
        emptyTitle="No transfers"
        emptyDescription={!keys.filtered ? 'Transfers between wallets appear here.' : 'No transfer matches these filters.'}
      />
    </Stack>
  );
}

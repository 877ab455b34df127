import { Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type Transfer, type TransferReversal, transferRoutes } from '@wallet/contracts';
import { useMemo } from 'react';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { ActivityTimeline, entry, type Step } from '../components/ActivityTimeline';
import { DateTime } from '../components/DateTime';
import { Facts } from '../components/Facts';
import { JournalEntryLink } from '../components/JournalEntryLink';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';

const routeApi = getRouteApi('/_session/transfers/$transferId');

function reversalColumns(currencyCode: string) {
  const helper = columnsOf<TransferReversal>();
  return helper.columns([
    helper.accessor('id', {
      header: 'Reversal',
      cell: (info) => (
        <Text ff="monospace" size="sm">
          {info.getValue()}
        </Text>
      ),
    }),
    helper.accessor('amount', { header: 'Amount', cell: (info) => <Money amount={info.getValue()} currencyCode={currencyCode} /> }),
    helper.accessor('feeRefunded', {
      header: 'Fee refunded',
      cell: (info) => <Money amount={info.getValue()} currencyCode={currencyCode} />,
    }),
    helper.accessor('reason', { header: 'Reason' }),
    helper.accessor('status', {
      header: 'Status',
      cell: (info) => <StatusBadge status={info.getValue()} awaitingLedger={info.row.original.awaitingLedger === true} />,
    }),
    helper.accessor('journalEntryId', {
      header: 'Journal entry',
      cell: (info) => <JournalEntryLink entryId={info.getValue()} missing={info.row.original.failureCode ?? 'Not posted'} />,
    }),
    helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
  ]);
}

/** A transfer's steps: asked for through the API, then posted by the ledger or refused with its code. */
function transferSteps(transfer: Transfer): Step[] {
  const created: Step = {
    title: 'Requested',
    done: true,
    body: (
      <Text size="sm">
        Through the API, <DateTime value={transfer.createdAt} />
      </Text>
    ),
  };
  if (transfer.failureCode !== null)
    return [created, { title: 'Refused by the ledger', done: true, body: <Text size="sm">Because: {transfer.failureCode}</Text> }];
  const posted = transfer.journalEntryId !== null;
  return [
    created,
    {
      title: posted ? 'Posted by the ledger' : 'Awaiting the ledger',
      done: posted,
      body: entry(transfer.journalEntryId, 'Awaiting the ledger'),
    },
  ];
}

function transferFacts(transfer: Transfer) {
  const money = (amount: string) => <Money amount={amount} currencyCode={transfer.currencyCode} />;
  return [
    ['Status', <StatusBadge key="status" status={transfer.status} />],
    ['From', <WalletLink key="from" walletId={transfer.fromWalletId} />],
    ['To', <WalletLink key="to" walletId={transfer.toWalletId} />],
    ['Amount', money(transfer.amount)],
    ['Fee (paid by the sender)', money(transfer.fee)],
    ['Description', transfer.description ?? '—'],
    [
      'Journal entry',
      <JournalEntryLink
        key="entry"
        entryId={transfer.journalEntryId}
        missing={transfer.status === 'pending' ? 'Awaiting the ledger' : 'None: refused'}
      />,
    ],
    ...(transfer.failureCode === null ? [] : ([['Refused with', transfer.failureCode]] as const)),
    ['Created', <DateTime key="created" value={transfer.createdAt} />],
  ] as const;
}

export function TransferPage() {
  const { transferId } = routeApi.useParams();
  const transfer = useQuery({
    queryKey: ['transfer', transferId],
    queryFn: ({ signal }) => api.call(transferRoutes.get, { params: { id: transferId }, signal }),
  });
  const currencyCode = transfer.data?.currencyCode;
  const columns = useMemo(() => reversalColumns(currencyCode ?? ''), [currencyCode]);
  if (transfer.isPending) return <LoadingState label="Loading the transfer" />;
  if (transfer.isError)
    return <ErrorState error={transfer.error} title="Could not load the transfer" onRetry={() => void transfer.refetch()} />;
  const shown = transfer.data;
  return (
    <Stack>
      <PageTitle>{`Transfer ${shown.id}`}</PageTitle>
      <Facts caption="The transfer" facts={transferFacts(shown)} />
      <ActivityTimeline steps={transferSteps(shown)} />
      <Title order={2} size="h3">
        Reversals
      </Title>
      <PagedTable
        key={shown.id}
        caption="Reversals of this transfer, newest first"
        queryKey={['transfer', shown.id, 'reversals']}
        fetchPage={(page, signal) => api.call(transferRoutes.listReversals, { params: { id: shown.id }, query: page, signal })}
        columns={columns}
        rowId={(reversal) => reversal.id}
        emptyTitle="Not reversed"
        emptyDescription="Reversals of this transfer, failed ones included, show here."
      />
    </Stack>
  );
}

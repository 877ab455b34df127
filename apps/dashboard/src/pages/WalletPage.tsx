import { Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type CreatedRange, type Wallet, walletRoutes, walletStatusChangeBodySchema, type WalletStatusChangeBody } from '@wallet/contracts';
import { useMemo, useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { ConfirmWithReason } from '../components/ConfirmWithReason';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ErrorState, LoadingState } from '../components/States';
import { statementCsv, type StatementLine } from '../export/csv';
import { fetchStatementDocument, fetchWholeStatement } from '../export/statement';
import { statementPdf } from '../export/statement-pdf';
import { listKeys, statementPeriodSchema } from '../app/filters';
import { CREATED_RANGE_FIELDS, FilterForm } from '../components/FilterForm';

const routeApi = getRouteApi('/_session/wallets/$walletId');

function statementColumns(currencyCode: string) {
  const helper = columnsOf<StatementLine>();
  return helper.columns([
    helper.accessor('createdAt', { header: 'Date', cell: (info) => <DateTime value={info.getValue()} /> }),
    helper.accessor('kind', { header: 'Kind' }),
    helper.accessor('direction', { header: 'Direction', cell: (info) => (info.getValue() === 'CR' ? 'In (credit)' : 'Out (debit)') }),
    helper.accessor('amount', { header: 'Amount', cell: (info) => <Money amount={info.getValue()} currencyCode={currencyCode} /> }),
    helper.accessor('balanceAfter', {
      header: 'Balance after',
      cell: (info) => <Money amount={info.getValue()} currencyCode={currencyCode} />,
    }),
    helper.accessor('journalEntryId', {
      header: 'Journal entry',
      cell: (info) => (
        <Text ff="monospace" size="xs">
          {info.getValue()}
        </Text>
      ),
    }),
  ]);
}

/** Freeze or unfreeze, whichever the wallet's status allows, with the reason the audit trail keeps. */
function StatusAction({ wallet }: { wallet: Wallet }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const route = wallet.status === 'active' ? walletRoutes.freeze : walletRoutes.unfreeze;
  const label = wallet.status === 'active' ? 'Freeze' : 'Unfreeze';
  const change = useMutation({
    mutationFn: (body: WalletStatusChangeBody) => api.call(route, { params: { id: wallet.id }, body }),
    onSuccess: (updated) => {
      queryClient.setQueryData(['wallet', wallet.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['wallets'] });
      setOpened(false);
    },
  });
  return (
    <>
      <Button color={wallet.status === 'active' ? 'blue' : 'green'} variant="light" onClick={() => (change.reset(), setOpened(true))}>
        {label} wallet
      </Button>
      <ConfirmWithReason
        opened={opened}
        onClose={() => setOpened(false)}
        title={`${label} wallet ${wallet.id}`}
        description={
          wallet.status === 'active'
            ? 'A frozen wallet still receives money but cannot send any until it is unfrozen.'
            : 'The wallet will be able to send money again.'
        }
        confirmLabel={label}
        schema={walletStatusChangeBodySchema}
        onConfirm={(body) => change.mutate(body)}
        pending={change.isPending}
        error={change.error}
      />
    </>
  );
}

/** Hands the browser a file made in the page. */
function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
  URL.revokeObjectURL(url);
}

/** The statement of the period on screen as CSV (its lines) or PDF (with its opening and closing balances). */
function StatementExports({ wallet, period }: { wallet: Wallet; period: CreatedRange }) {
  const csv = useMutation({
    mutationFn: () => fetchWholeStatement(api, wallet.id, undefined, period),
    onSuccess: (lines) =>
      download(new Blob([statementCsv(lines, wallet.currencyCode)], { type: 'text/csv;charset=utf-8' }), `statement-${wallet.id}.csv`),
  });
  const pdf = useMutation({
    mutationFn: async () => statementPdf(await fetchStatementDocument(api, wallet, period)),
    onSuccess: (blob) => download(blob, `statement-${wallet.id}.pdf`),
  });
  const failed = csv.error ?? pdf.error;
  return (
    <>
      <Button variant="default" onClick={() => csv.mutate()} loading={csv.isPending}>
        Export statement (CSV)
      </Button>
      <Button variant="default" onClick={() => pdf.mutate()} loading={pdf.isPending}>
        Statement (PDF)
      </Button>
      {failed && <ErrorState error={failed} title="The export failed" />}
    </>
  );
}

/** The statement of the period in the address, its filter and its exports. */
function WalletStatement({ wallet }: { wallet: Wallet }) {
  const period = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(period);
  // Stable columns: TanStack Table rebuilds its models whenever they change identity.
  const columns = useMemo(() => statementColumns(wallet.currencyCode), [wallet.currencyCode]);
  return (
    <>
      <Title order={2} size="h3">
        Statement
      </Title>
      <FilterForm
        key={keys.form}
        label="Statement period"
        schema={statementPeriodSchema}
        fields={CREATED_RANGE_FIELDS}
        filters={period}
        onApply={(next) => void navigate({ search: next })}
        extra={<StatementExports wallet={wallet} period={period} />}
      />
      <PagedTable
        key={`${wallet.id}:${keys.list}`}
        caption="Statement, newest first"
        queryKey={['wallet', wallet.id, 'entries', period]}
        fetchPage={(page, signal) => api.call(walletRoutes.entries, { params: { id: wallet.id }, query: { ...period, ...page }, signal })}
        columns={columns}
        rowId={(line) => `${line.journalEntryId}:${line.direction}:${line.createdAt}`}
        emptyTitle="No entries yet"
        emptyDescription="Money in and out of this wallet shows here."
      />
    </>
  );
}

export function WalletPage() {
  const { walletId } = routeApi.useParams();
  const principal = usePrincipal();
  const wallet = useQuery({
    queryKey: ['wallet', walletId],
    queryFn: ({ signal }) => api.call(walletRoutes.get, { params: { id: walletId }, signal }),
  });

  if (wallet.isPending) return <LoadingState label="Loading the wallet" />;
  if (wallet.isError) return <ErrorState error={wallet.error} title="Could not load the wallet" onRetry={() => void wallet.refetch()} />;
  const shown = wallet.data;
  return (
    <Stack>
      <PageTitle>{`Wallet ${shown.id}`}</PageTitle>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Card withBorder>
          <Text size="sm" c="dimmed">
            Balance
          </Text>
          <Text size="xl" fw={700}>
            <Money amount={shown.balance} currencyCode={shown.currencyCode} />
          </Text>
        </Card>
        <Card withBorder>
          <Text size="sm" c="dimmed">
            Owner
          </Text>
          <Text>
            {shown.ownerType} · {shown.ownerId}
          </Text>
          <Text size="sm" c="dimmed">
            Created <DateTime value={shown.createdAt} />
          </Text>
        </Card>
        <Card withBorder>
          <Text size="sm" c="dimmed">
            Status
          </Text>
          <Group gap="xs">
            <Badge color={shown.status === 'frozen' ? 'blue' : 'green'} variant="light">
              {shown.status}
            </Badge>
          </Group>
        </Card>
      </SimpleGrid>
      {canCall(principal.scopes, walletRoutes.freeze) && (
        <Group>
          <StatusAction wallet={shown} />
        </Group>
      )}
      <WalletStatement wallet={shown} />
    </Stack>
  );
}

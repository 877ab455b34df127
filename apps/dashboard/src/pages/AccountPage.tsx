import { Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { accountNameSchema, type LedgerAccount, ledgerRoutes, PAGE_LIMIT_MAX, type statementLineSchema } from '@wallet/contracts';
import { useMemo } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { type AccountLine, linesOfAccount } from '../books/journal';
import { AccountLink, DirectionText, EntryLink, WalletLink } from '../components/BooksLinks';
import { DateTime } from '../components/DateTime';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { Empty, ErrorState, LoadingState } from '../components/States';
import { JOURNAL_PAGE_SIZE } from './JournalPage';

const routeApi = getRouteApi('/_session/accounts/$accountName');

/**
 * The accounts of one name: one per currency (a wallet account's name is its owner's, so an
 * owner's wallets share it). A tenant has far fewer currencies than a page holds, so one page is all of them.
 */
function useAccountsNamed(accountName: string, walletId: string | undefined, valid: boolean) {
  return useQuery({
    queryKey: ['ledger-accounts', { name: accountName, walletId }],
    queryFn: ({ signal }) => api.call(ledgerRoutes.accounts, { query: { name: accountName, walletId, limit: PAGE_LIMIT_MAX }, signal }),
    enabled: valid,
  });
}

function Balances({ accounts }: { accounts: ReturnType<typeof useAccountsNamed> }) {
  if (accounts.isPending) return <LoadingState label="Loading the balances" />;
  if (accounts.isError)
    return <ErrorState error={accounts.error} title="Could not load the balances" onRetry={() => void accounts.refetch()} />;
  if (accounts.data.data.length === 0)
    return <Empty title="No such account" description="The ledger has no account of this name in this environment yet." />;
  return <BalancesTable accounts={accounts.data.data} />;
}

function BalancesTable({ accounts }: { accounts: LedgerAccount[] }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table>
        <Table.Caption>Balances</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Currency</Table.Th>
            <Table.Th scope="col">Balance</Table.Th>
            <Table.Th scope="col">Normal side</Table.Th>
            <Table.Th scope="col">Wallet</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {accounts.map((account) => (
            <Table.Tr key={account.id}>
              <Table.Th scope="row">{account.currencyCode}</Table.Th>
              <Table.Td>
                <Money amount={account.balance} currencyCode={account.currencyCode} />
              </Table.Td>
              <Table.Td>{account.normalSide === 'DR' ? 'Debit' : 'Credit'}</Table.Td>
              <Table.Td>
                {account.walletId ? (
                  <>
                    <WalletLink id={account.walletId} /> · <AccountLink name={account.name} walletId={account.walletId} />
                  </>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td>{account.status}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

const lineHelper = columnsOf<AccountLine>();
const lineColumns = lineHelper.columns([
  lineHelper.accessor('createdAt', { header: 'Date', cell: (info) => <DateTime value={info.getValue()} /> }),
  lineHelper.accessor('entryId', { header: 'Entry', cell: (info) => <EntryLink id={info.getValue()} /> }),
  lineHelper.accessor('kind', { header: 'Kind' }),
  lineHelper.accessor('direction', { header: 'Direction', cell: (info) => <DirectionText direction={info.getValue()} /> }),
  lineHelper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
]);

/** Any account's lines: the journal's entries that move it (the API filters by account name), one page of entries at a time. */
function JournalLines({ accountName }: { accountName: string }) {
  return (
    <PagedTable
      key={accountName}
      caption="Lines of this account, newest first"
      queryKey={['account-lines', accountName]}
      fetchPage={async (page, signal) => {
        const entries = await api.call(ledgerRoutes.journal, { query: { accountName, ...page }, signal });
        return { data: linesOfAccount(entries.data, accountName), nextCursor: entries.nextCursor };
      }}
      columns={lineColumns}
      rowId={(line) => `${line.entryId}:${line.lineIndex}`}
      pageSize={JOURNAL_PAGE_SIZE}
      emptyTitle="No lines yet"
      emptyDescription="Entries that move this account show here."
    />
  );
}

type StatementLine = z.infer<typeof statementLineSchema>;

function statementColumns(currencyCode: string | undefined) {
  const helper = columnsOf<StatementLine>();
  const money = (amount: string) => (currencyCode ? <Money amount={amount} currencyCode={currencyCode} /> : amount);
  return helper.columns([
    helper.accessor('createdAt', { header: 'Date', cell: (info) => <DateTime value={info.getValue()} /> }),
    helper.accessor('journalEntryId', { header: 'Entry', cell: (info) => <EntryLink id={info.getValue()} /> }),
    helper.accessor('kind', { header: 'Kind' }),
    helper.accessor('direction', { header: 'Direction', cell: (info) => <DirectionText direction={info.getValue()} /> }),
    helper.accessor('amount', { header: 'Amount', cell: (info) => money(info.getValue()) }),
    helper.accessor('balanceAfter', { header: 'Balance after', cell: (info) => money(info.getValue()) }),
  ]);
}

/** A wallet account's lines with the running balance: the ledger's statement of that wallet. */
function WalletStatement({ walletId, currencyCode }: { walletId: string; currencyCode: string | undefined }) {
  const columns = useMemo(() => statementColumns(currencyCode), [currencyCode]);
  return (
    <PagedTable
      key={walletId}
      caption="Lines of this wallet account with the balance after each, newest first"
      queryKey={['ledger-statement', walletId]}
      fetchPage={(page, signal) => api.call(ledgerRoutes.walletEntries, { params: { walletId }, query: page, signal })}
      columns={columns}
      rowId={(line) => `${line.journalEntryId}:${line.direction}:${line.createdAt}`}
      pageSize={JOURNAL_PAGE_SIZE}
      emptyTitle="No lines yet"
      emptyDescription="Money in and out of this wallet shows here."
    />
  );
}

export function AccountPage() {
  const { accountName } = routeApi.useParams();
  const { walletId } = routeApi.useSearch();
  const valid = accountNameSchema.safeParse(accountName).success;
  const accounts = useAccountsNamed(accountName, walletId, valid);
  if (!valid) {
    return (
      <>
        <PageTitle>Ledger account</PageTitle>
        <Empty title="Not a ledger account name" description={`${accountName} is no name of the chart of accounts.`} />
      </>
    );
  }
  return (
    <Stack>
      <PageTitle>{`Account ${accountName}`}</PageTitle>
      {walletId && (
        <Text size="sm">
          Wallet <WalletLink id={walletId} />{' '}
          <RouterAnchor to="/accounts/$accountName" params={{ accountName }} search={{}} size="sm" underline="always">
            (every currency of this account)
          </RouterAnchor>
        </Text>
      )}
      <Title order={2} size="h3">
        Balance
      </Title>
      <Balances accounts={accounts} />
      <Title order={2} size="h3">
        Lines
      </Title>
      {walletId ? (
        <WalletStatement walletId={walletId} currencyCode={accounts.data?.data[0]?.currencyCode} />
      ) : (
        <JournalLines accountName={accountName} />
      )}
    </Stack>
  );
}

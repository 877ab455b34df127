import { Badge, Card, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type JournalEntry, ledgerRoutes } from '@wallet/contracts';
import type { ReactNode } from 'react';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { entryTotals } from '../books/journal';
import { AccountLink, EntryLink, WalletLink } from '../components/BooksLinks';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';

const routeApi = getRouteApi('/_session/journal/$entryId');

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Card>
  );
}

/** The entry's lines in debit and credit columns, with the totals per currency that must agree. */
function LinesTable({ entry }: { entry: JournalEntry }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped>
        <Table.Caption>Lines of entry {entry.id}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Account</Table.Th>
            <Table.Th scope="col">Wallet</Table.Th>
            <Table.Th scope="col">Debit</Table.Th>
            <Table.Th scope="col">Credit</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entry.lines.map((line, index) => (
            <Table.Tr key={index}>
              <Table.Td>
                <AccountLink name={line.accountName} walletId={line.walletId} />
              </Table.Td>
              <Table.Td>{line.walletId ? <WalletLink id={line.walletId} /> : '—'}</Table.Td>
              <Table.Td>{line.direction === 'DR' && <Money amount={line.amount} currencyCode={line.currencyCode} />}</Table.Td>
              <Table.Td>{line.direction === 'CR' && <Money amount={line.amount} currencyCode={line.currencyCode} />}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
        <Table.Tfoot>
          {entryTotals(entry.lines).map((total) => (
            <Table.Tr key={total.currencyCode}>
              <Table.Th scope="row" colSpan={2}>
                Total {total.currencyCode}{' '}
                <Badge color={total.balanced ? 'green' : 'red'} variant="light" ml="xs">
                  {total.balanced ? 'balanced' : 'unbalanced'}
                </Badge>
              </Table.Th>
              <Table.Td>
                <Money amount={total.debits} currencyCode={total.currencyCode} />
              </Table.Td>
              <Table.Td>
                <Money amount={total.credits} currencyCode={total.currencyCode} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tfoot>
      </Table>
    </Table.ScrollContainer>
  );
}

export function JournalEntryPage() {
  const { entryId } = routeApi.useParams();
  const entry = useQuery({
    queryKey: ['journal-entry', entryId],
    queryFn: ({ signal }) => api.call(ledgerRoutes.entry, { params: { id: entryId }, signal }),
  });
  if (entry.isPending) return <LoadingState label="Loading the journal entry" />;
  if (entry.isError)
    return <ErrorState error={entry.error} title="Could not load the journal entry" onRetry={() => void entry.refetch()} />;
  const shown = entry.data;
  return (
    <Stack>
      <PageTitle>{`Journal entry ${shown.id}`}</PageTitle>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Fact label="Kind">
          <Badge variant="light">{shown.kind}</Badge>
        </Fact>
        <Fact label="Posted">
          <DateTime value={shown.createdAt} />
        </Fact>
        <Fact label="Reference">
          <Text ff="monospace" size="sm">{`${shown.reference.type} · ${shown.reference.id}`}</Text>
        </Fact>
        <Fact label="Reverses">{shown.reversesEntryId ? <EntryLink id={shown.reversesEntryId} /> : <Text size="sm">—</Text>}</Fact>
      </SimpleGrid>
      <Title order={2} size="h3">
        Lines
      </Title>
      <LinesTable entry={shown} />
    </Stack>
  );
}

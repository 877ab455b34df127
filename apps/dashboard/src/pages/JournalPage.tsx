import { Badge, Button, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { JOURNAL_KINDS, type JournalEntry, ledgerRoutes } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { PageTitle } from '../app/Shell';
import { isoToLocalInput, type JournalFilters, journalFiltersSchema, localInputToIso } from '../books/journal';
import { AccountLink, DirectionText, EntryLink } from '../components/BooksLinks';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { AppForm } from '../components/AppForm';
import { listKeys } from '../app/filters';

const routeApi = getRouteApi('/_session/journal');

/** Entries per page: the API reads one page of them and the screen renders only that, however long the journal. */
export const JOURNAL_PAGE_SIZE = 50;

/** An entry's lines, each on its own line: direction, account and amount. */
function EntryLines({ entry }: { entry: JournalEntry }) {
  return (
    <Stack gap={2} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {entry.lines.map((line, index) => (
        <Group key={index} gap={6} wrap="nowrap" component="li">
          <DirectionText direction={line.direction} />
          <AccountLink name={line.accountName} walletId={line.walletId} />
          <Text size="xs">
            <Money amount={line.amount} currencyCode={line.currencyCode} />
          </Text>
        </Group>
      ))}
    </Stack>
  );
}

const helper = columnsOf<JournalEntry>();
const columns = helper.columns([
  helper.accessor('createdAt', { header: 'Date', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('id', { header: 'Entry', cell: (info) => <EntryLink id={info.getValue()} /> }),
  helper.accessor('kind', {
    header: 'Kind',
    cell: (info) => (
      <Badge variant="light" color={info.row.original.reversesEntryId ? 'orange' : 'gray'}>
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('reference', {
    header: 'Reference',
    cell: (info) => <Text size="xs" ff="monospace">{`${info.getValue().type} · ${info.getValue().id}`}</Text>,
  }),
  helper.display({ id: 'lines', header: 'Lines', cell: (info) => <EntryLines entry={info.row.original} /> }),
]);

const KINDS = [{ value: '', label: 'Any' }, ...JOURNAL_KINDS.map((kind) => ({ value: kind, label: kind }))];

/** The filter form: its values become the URL's search, checked by the API's own query schema. */
function JournalFilterForm({ filters, onApply }: { filters: JournalFilters; onApply: (filters: JournalFilters) => void }) {
  const [kind, setKind] = useState<string>(filters.kind ?? '');
  const [accountName, setAccountName] = useState(filters.accountName ?? '');
  const [walletId, setWalletId] = useState(filters.walletId ?? '');
  const [from, setFrom] = useState(isoToLocalInput(filters.from));
  const [to, setTo] = useState(isoToLocalInput(filters.to));
  const [errors, setErrors] = useState<FieldErrors>({});
  const apply = () => {
    const checked = checkForm(journalFiltersSchema, {
      kind: optionalText(kind) as JournalFilters['kind'],
      accountName: optionalText(accountName),
      walletId: optionalText(walletId),
      from: localInputToIso(from),
      to: localInputToIso(to),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" mb="md" component="search" aria-label="Filter journal entries">
      <AppForm onSubmit={apply}>
        <Group align="flex-start" wrap="wrap">
          <Select
            label="Kind"
            data={KINDS}
            value={kind}
            onChange={(value) => setKind(value ?? '')}
            allowDeselect={false}
            w={190}
            error={errors.kind}
          />
          <TextInput
            label="Account name"
            placeholder="wallet:owner-1"
            value={accountName}
            onChange={(event) => setAccountName(event.currentTarget.value)}
            error={errors.accountName}
            w={220}
          />
          <TextInput
            label="Wallet id"
            value={walletId}
            onChange={(event) => setWalletId(event.currentTarget.value)}
            error={errors.walletId}
            w={220}
          />
          <TextInput
            type="datetime-local"
            step={1}
            label="From"
            value={from}
            onChange={(event) => setFrom(event.currentTarget.value)}
            error={errors.from}
          />
          <TextInput
            type="datetime-local"
            step={1}
            label="To"
            value={to}
            onChange={(event) => setTo(event.currentTarget.value)}
            error={errors.to}
          />
          <Group gap="xs" mt={25}>
            <Button type="submit">Search</Button>
            <Button variant="subtle" onClick={() => onApply({})}>
              Clear
            </Button>
          </Group>
        </Group>
      </AppForm>
    </Paper>
  );
}

export function JournalPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(filters);
  return (
    <>
      <PageTitle>Journal</PageTitle>
      <JournalFilterForm key={keys.form} filters={filters} onApply={(next) => void navigate({ search: next })} />
      <PagedTable
        key={keys.list}
        caption="Journal entries, newest first"
        queryKey={['journal', filters]}
        fetchPage={fillingPages((page, signal) => api.call(ledgerRoutes.journal, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(entry) => entry.id}
        pageSize={JOURNAL_PAGE_SIZE}
        emptyTitle="No journal entries"
        emptyDescription={!keys.filtered ? 'Entries appear here once money moves.' : 'No entry matches these filters.'}
      />
    </>
  );
}

import { Button, Code, Group, MultiSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { EVENT_TYPES, eventRoutes, type PlatformEvent } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { usePrincipal } from '../app/principal';
import { type EventFilters, eventFiltersSchema, eventQuery } from '../app/team-filters';
import { AppForm } from '../components/AppForm';
import { DateTime } from '../components/DateTime';
import { EventLink } from '../components/DeveloperLinks';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { localInputToTimestamp, timestampToLocalInput } from '../forms/datetime';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { listKeys } from '../app/filters';

const helper = columnsOf<PlatformEvent>();
const columns = helper.columns([
  helper.accessor('createdAt', { header: 'When', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('type', { header: 'Type', cell: (info) => <Code>{info.getValue()}</Code> }),
  helper.display({
    id: 'object',
    header: 'Object',
    cell: (info) => {
      const id = info.row.original.data.object.id;
      return typeof id === 'string' ? (
        <Text ff="monospace" size="xs">
          {id}
        </Text>
      ) : (
        '—'
      );
    },
  }),
  helper.accessor('id', { header: 'Event', cell: (info) => <EventLink id={info.getValue()} /> }),
]);

const TYPE_CHOICES = EVENT_TYPES.map((type) => ({ value: type, label: type }));

type FilterValues = { type: string[] } & Record<'objectId' | 'createdFrom' | 'createdTo', string>;

function EventFilterForm({ filters, onApply }: { filters: EventFilters; onApply: (filters: EventFilters) => void }) {
  const [values, setValues] = useState<FilterValues>({
    type: filters.type ?? [],
    objectId: filters.objectId ?? '',
    createdFrom: timestampToLocalInput(filters.createdFrom),
    createdTo: timestampToLocalInput(filters.createdTo),
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (field: 'objectId' | 'createdFrom' | 'createdTo') => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setValues((current) => ({ ...current, [field]: value }));
  };
  const apply = () => {
    const checked = checkForm(eventFiltersSchema, {
      type: values.type.length === 0 ? undefined : (values.type as EventFilters['type']),
      objectId: optionalText(values.objectId),
      createdFrom: localInputToTimestamp(values.createdFrom),
      createdTo: localInputToTimestamp(values.createdTo),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" component="search" aria-label="Filter events">
      <AppForm onSubmit={apply}>
        <Group align="flex-end" wrap="wrap">
          <MultiSelect
            label="Types"
            placeholder={values.type.length === 0 ? 'Any' : undefined}
            data={TYPE_CHOICES}
            value={values.type}
            onChange={(type) => setValues((current) => ({ ...current, type }))}
            searchable
            clearable
            error={errors.type}
            miw={260}
            maw={420}
          />
          <TextInput label="Object id" placeholder="tr_..." value={values.objectId} onChange={set('objectId')} error={errors.objectId} />
          <TextInput
            label="From"
            description="Your time zone, inclusive"
            type="datetime-local"
            value={values.createdFrom}
            onChange={set('createdFrom')}
            error={errors.createdFrom}
          />
          <TextInput
            label="Until"
            description="Your time zone, exclusive"
            type="datetime-local"
            value={values.createdTo}
            onChange={set('createdTo')}
            error={errors.createdTo}
          />
          <Button type="submit">Search</Button>
          <Button variant="subtle" onClick={() => onApply({})}>
            Clear
          </Button>
        </Group>
      </AppForm>
    </Paper>
  );
}

/** The event log of the session's environment: what the webhooks deliver, newest first, filtered on the server. */
export function EventsSection({ filters, onApply }: { filters: EventFilters; onApply: (filters: EventFilters) => void }) {
  const { environment } = usePrincipal();
  const keys = listKeys(filters);
  return (
    <Stack>
      <Title order={2} size="h3">
        Events
      </Title>
      <Text size="sm" c="dimmed">
        Every change of money and of what holds it in the {environment} environment, as webhooks deliver it, newest first; kept at least 30
        days.
      </Text>
      <EventFilterForm key={keys.form} filters={filters} onApply={onApply} />
      <PagedTable
        key={keys.list}
        caption="Events, newest first"
        queryKey={['events', environment, filters]}
        fetchPage={fillingPages((page, signal) => api.call(eventRoutes.list, { query: { ...eventQuery(filters), ...page }, signal }))}
        columns={columns}
        rowId={(event) => event.id}
        emptyTitle="No events"
        emptyDescription={!keys.filtered ? 'Events show here as money moves.' : 'No event matches these filters.'}
      />
    </Stack>
  );
}

import { Button, Code, Group, Modal, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { type AuditEvent, auditRoutes } from '@wallet/contracts';
import { useState } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { PageTitle } from '../app/Shell';
import { auditFiltersSchema } from '../app/team-filters';
import { DateTime } from '../components/DateTime';
import { DetailTable } from '../components/DetailTable';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { localInputToTimestamp, timestampToLocalInput } from '../forms/datetime';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { auditDetails } from '../format/audit';
import { AppForm } from '../components/AppForm';
import { listKeys } from '../app/filters';
import { MemberName } from '../components/MemberName';

const routeApi = getRouteApi('/_session/audit');
type AuditFilters = z.infer<typeof auditFiltersSchema>;

/** How an actor acted, in words: the API's actor types are its own. */
const ACTOR_TYPES: Record<string, string> = {
  team_member: 'in the dashboard',
  api_key: 'with an API key',
  system: 'the platform',
  user: 'a customer',
};

/** Who did it, by name where a member did, and how. */
function AuditActor({ event }: { event: AuditEvent }) {
  return (
    <Group gap={6} wrap="nowrap">
      <MemberName memberId={event.actorId} />
      <Text size="xs" c="dimmed" component="span">
        {ACTOR_TYPES[event.actorType] ?? event.actorType}
      </Text>
    </Group>
  );
}

/** What it was done to: a member by name, anything else by its kind in words and its id. */
function AuditTarget({ event }: { event: AuditEvent }) {
  const kind = event.targetType.replace(/_/g, ' ');
  return (
    <Group gap={6} wrap="nowrap">
      {event.targetType === 'team_member' ? (
        <MemberName memberId={event.targetId} />
      ) : (
        <Text ff="monospace" size="xs" component="span">
          {event.targetId}
        </Text>
      )}
      <Text size="xs" c="dimmed" component="span">
        {kind}
      </Text>
    </Group>
  );
}

/** One event in full: who did what to what, when, and what changed (before / after) with the rest of its metadata. */
function AuditEventDetails({ event }: { event: AuditEvent }) {
  const details = auditDetails(event.metadata);
  return (
    <Stack>
      <DetailTable
        caption="Event"
        rows={[
          { label: 'Action', value: <Code>{event.action}</Code> },
          { label: 'When', value: <DateTime value={event.createdAt} /> },
          { label: 'Actor', value: <AuditActor event={event} /> },
          { label: 'Target', value: <AuditTarget event={event} /> },
          { label: 'Event id', value: <Code>{event.id}</Code> },
        ]}
      />
      <Title order={3} size="h5">
        What changed
      </Title>
      {details.changes.length === 0 ? (
        <Text size="sm" c="dimmed">
          This event records no before / after values.
        </Text>
      ) : (
        <Table withRowBorders layout="fixed">
          <Table.Caption>Fields before and after the action</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Field</Table.Th>
              <Table.Th scope="col">Before</Table.Th>
              <Table.Th scope="col">After</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {details.changes.map((change) => (
              <Table.Tr key={change.field}>
                <Table.Th scope="row">{change.field}</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{change.before}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{change.after}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {details.other.length > 0 && (
        <DetailTable caption="Other details" rows={details.other.map((entry) => ({ label: entry.field, value: entry.value }))} />
      )}
    </Stack>
  );
}

function ShowDetails({ event }: { event: AuditEvent }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setOpened(true)} aria-label={`Details of ${event.action} ${event.id}`}>
        Details
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={event.action} size="lg" centered>
        <AuditEventDetails event={event} />
      </Modal>
    </>
  );
}

const helper = columnsOf<AuditEvent>();
const columns = helper.columns([
  helper.accessor('createdAt', { header: 'When', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('action', { header: 'Action', cell: (info) => <Code>{info.getValue()}</Code> }),
  helper.accessor('actorId', { header: 'Actor', cell: (info) => <AuditActor event={info.row.original} /> }),
  helper.accessor('targetId', { header: 'Target', cell: (info) => <AuditTarget event={info.row.original} /> }),
  helper.display({ id: 'details', header: 'Details', cell: (info) => <ShowDetails event={info.row.original} /> }),
]);

type FilterValues = Record<'action' | 'actorId' | 'targetType' | 'targetId' | 'from' | 'to', string>;

function AuditFilterForm({ filters, onApply }: { filters: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const [values, setValues] = useState<FilterValues>({
    action: filters.action ?? '',
    actorId: filters.actorId ?? '',
    targetType: filters.targetType ?? '',
    targetId: filters.targetId ?? '',
    from: timestampToLocalInput(filters.from),
    to: timestampToLocalInput(filters.to),
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (field: keyof FilterValues) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setValues((current) => ({ ...current, [field]: value }));
  };
  const apply = () => {
    const checked = checkForm(auditFiltersSchema, {
      action: optionalText(values.action),
      actorId: optionalText(values.actorId),
      targetType: optionalText(values.targetType),
      targetId: optionalText(values.targetId),
      from: localInputToTimestamp(values.from),
      to: localInputToTimestamp(values.to),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" mb="md" component="search" aria-label="Filter audit events">
      <AppForm onSubmit={apply}>
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Action"
            placeholder="team_member.role_changed"
            value={values.action}
            onChange={set('action')}
            error={errors.action}
          />
          <TextInput label="Actor id" value={values.actorId} onChange={set('actorId')} error={errors.actorId} />
          <TextInput
            label="Target type"
            placeholder="api_key"
            value={values.targetType}
            onChange={set('targetType')}
            error={errors.targetType}
            w={150}
          />
          <TextInput label="Target id" value={values.targetId} onChange={set('targetId')} error={errors.targetId} />
          <TextInput
            label="From"
            description="Your time zone, inclusive"
            type="datetime-local"
            value={values.from}
            onChange={set('from')}
            error={errors.from}
          />
          <TextInput
            label="Until"
            description="Your time zone, exclusive"
            type="datetime-local"
            value={values.to}
            onChange={set('to')}
            error={errors.to}
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

export function AuditPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const keys = listKeys(filters);
  return (
    <>
      <PageTitle>Audit trail</PageTitle>
      <AuditFilterForm key={keys.form} filters={filters} onApply={(next) => void navigate({ search: next })} />
      <PagedTable
        key={keys.list}
        caption="Audit events, newest first"
        queryKey={['audit-events', filters]}
        fetchPage={fillingPages((page, signal) => api.call(auditRoutes.list, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(event) => event.id}
        emptyTitle="No audit events"
        emptyDescription={
          !keys.filtered ? 'Key, team, session, approval, freeze and fee actions are recorded here.' : 'No event matches these filters.'
        }
      />
    </>
  );
}

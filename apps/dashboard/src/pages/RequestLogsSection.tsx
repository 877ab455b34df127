import { Badge, Button, Code, Group, Modal, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { type RequestLog, requestLogRoutes } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { usePrincipal } from '../app/principal';
import { type RequestLogFilters, requestLogFiltersSchema, requestLogQuery } from '../app/team-filters';
import { DateTime } from '../components/DateTime';
import { DetailTable } from '../components/DetailTable';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { AppForm } from '../components/AppForm';
import { listKeys } from '../app/filters';

function statusColor(status: number): string {
  if (status >= 500) return 'red';
  if (status >= 400) return 'orange';
  return 'green';
}

const orNone = (value: string | null) => value ?? '—';

function RequestLogDetails({ log }: { log: RequestLog }) {
  return (
    <DetailTable
      caption="Request"
      rows={[
        { label: 'When', value: <DateTime value={log.createdAt} /> },
        { label: 'Request', value: <Code>{`${log.method} ${log.path}`}</Code> },
        { label: 'Status', value: String(log.status) },
        { label: 'Error code', value: orNone(log.errorCode) },
        { label: 'Correlation id', value: <Code>{log.correlationId}</Code> },
        { label: 'Idempotency key', value: orNone(log.idempotencyKey) },
        { label: 'Authenticated by', value: log.authMode ?? 'Not authenticated' },
        { label: 'API key', value: orNone(log.apiKeyId) },
        { label: 'Signature verified', value: log.requestSignatureVerified ? 'Yes' : 'No' },
        { label: 'Actor', value: log.actorId === null ? '—' : `${log.actorType ?? ''} · ${log.actorId}` },
        { label: 'Duration', value: `${log.durationMs} ms` },
        { label: 'Log id', value: <Code>{log.id}</Code> },
      ]}
    />
  );
}

function ShowLog({ log }: { log: RequestLog }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setOpened(true)} aria-label={`Details of ${log.method} ${log.path} ${log.id}`}>
        Details
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={`${log.method} ${log.path}`} size="lg" centered>
        <RequestLogDetails log={log} />
      </Modal>
    </>
  );
}

const helper = columnsOf<RequestLog>();
const columns = helper.columns([
  helper.accessor('createdAt', { header: 'When', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('path', {
    header: 'Request',
    cell: (info) => <Text ff="monospace" size="xs">{`${info.row.original.method} ${info.getValue()}`}</Text>,
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => (
      <Group gap={4} wrap="nowrap">
        <Badge color={statusColor(info.getValue())} variant="light">
          {info.getValue()}
        </Badge>
        {info.row.original.errorCode && <Text size="xs">{info.row.original.errorCode}</Text>}
      </Group>
    ),
  }),
  helper.accessor('apiKeyId', {
    header: 'Caller',
    cell: (info) => <Text size="xs">{info.getValue() ?? info.row.original.authMode ?? 'unauthenticated'}</Text>,
  }),
  helper.accessor('requestSignatureVerified', { header: 'Signed', cell: (info) => (info.getValue() ? 'Yes' : 'No') }),
  helper.accessor('durationMs', { header: 'Duration', cell: (info) => `${info.getValue()} ms` }),
  helper.display({ id: 'details', header: 'Details', cell: (info) => <ShowLog log={info.row.original} /> }),
]);

const SIGNATURE_CHOICES = [
  { value: '', label: 'Any' },
  { value: 'true', label: 'Verified' },
  { value: 'false', label: 'Not verified' },
];

function RequestLogFilterForm({ filters, onApply }: { filters: RequestLogFilters; onApply: (filters: RequestLogFilters) => void }) {
  const [values, setValues] = useState({
    correlationId: filters.correlationId ?? '',
    idempotencyKey: filters.idempotencyKey ?? '',
    apiKeyId: filters.apiKeyId ?? '',
    status: filters.status === undefined ? '' : String(filters.status),
    requestSignatureVerified: filters.requestSignatureVerified === undefined ? '' : String(filters.requestSignatureVerified),
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (field: keyof typeof values) => (value: string) => setValues((current) => ({ ...current, [field]: value }));
  const apply = () => {
    const signature = values.requestSignatureVerified;
    const checked = checkForm(requestLogFiltersSchema, {
      correlationId: optionalText(values.correlationId),
      idempotencyKey: optionalText(values.idempotencyKey),
      apiKeyId: optionalText(values.apiKeyId),
      status: optionalText(values.status),
      requestSignatureVerified: signature === '' ? undefined : signature === 'true',
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" component="search" aria-label="Filter request logs">
      <AppForm onSubmit={apply}>
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Status"
            placeholder="401"
            inputMode="numeric"
            value={values.status}
            onChange={(event) => set('status')(event.currentTarget.value)}
            error={errors.status}
            w={90}
          />
          <TextInput
            label="Correlation id"
            value={values.correlationId}
            onChange={(event) => set('correlationId')(event.currentTarget.value)}
            error={errors.correlationId}
          />
          <TextInput
            label="Idempotency key"
            value={values.idempotencyKey}
            onChange={(event) => set('idempotencyKey')(event.currentTarget.value)}
            error={errors.idempotencyKey}
          />
          <TextInput
            label="API key id"
            placeholder="ak_..."
            value={values.apiKeyId}
            onChange={(event) => set('apiKeyId')(event.currentTarget.value)}
            error={errors.apiKeyId}
          />
          <Select
            label="Signature"
            data={SIGNATURE_CHOICES}
            value={values.requestSignatureVerified}
            onChange={(value) => set('requestSignatureVerified')(value ?? '')}
            allowDeselect={false}
            w={140}
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

/** The gateway's log of the tenant's calls in the session's environment, filtered on the server. */
export function RequestLogsSection({ filters, onApply }: { filters: RequestLogFilters; onApply: (filters: RequestLogFilters) => void }) {
  const { environment } = usePrincipal();
  const keys = listKeys(filters);
  return (
    <Stack>
      <Title order={2} size="h3">
        Request logs
      </Title>
      <Text size="sm" c="dimmed">
        Every call to the API in the {environment} environment, as the gateway answered it, newest first.
      </Text>
      <RequestLogFilterForm key={keys.form} filters={filters} onApply={onApply} />
      <PagedTable
        key={keys.list}
        caption="Request logs, newest first"
        queryKey={['request-logs', environment, filters]}
        fetchPage={fillingPages((page, signal) =>
          api.call(requestLogRoutes.list, { query: { ...requestLogQuery(filters), ...page }, signal }),
        )}
        columns={columns}
        rowId={(log) => log.id}
        emptyTitle="No requests"
        emptyDescription={!keys.filtered ? 'Calls to the API show here as they happen.' : 'No request matches these filters.'}
      />
    </Stack>
  );
}

import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { createWebhookEndpointBodySchema, type WebhookEndpoint, webhookEndpointRoutes } from '@wallet/contracts';
import { useState } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { EndpointLink } from '../components/DeveloperLinks';
import { FormDialog } from '../components/FormDialog';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors } from '../forms/schema';
import { endpointState, eventTypesLabel } from '../format/webhooks';
import { SecretOnceModal } from './SecretOnceModal';
import { EndpointActions } from './WebhookEndpointActions';
import { endpointBodyOf, NEW_ENDPOINT } from '../forms/webhook-endpoint';
import { EndpointFields, useEndpointSecretCall, WEBHOOKS_QUERY_KEY } from './WebhookEndpointFields';

function CreateEndpoint() {
  const { scopes } = usePrincipal();
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(NEW_ENDPOINT);
  const [errors, setErrors] = useState<FieldErrors>({});
  const {
    mutation: create,
    revealed,
    forget,
  } = useEndpointSecretCall(
    (body: z.input<typeof createWebhookEndpointBodySchema>) => api.call(webhookEndpointRoutes.create, { body }),
    () => setOpened(false),
  );
  const submit = () => {
    const entered = endpointBodyOf(values);
    if (!entered.ok) return setErrors(entered.errors);
    const checked = checkForm(createWebhookEndpointBodySchema, entered.fields);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    create.mutate(checked.value);
  };
  if (!canCall(scopes, webhookEndpointRoutes.create)) return null;
  return (
    <>
      <Button onClick={() => (create.reset(), setValues(NEW_ENDPOINT), setErrors({}), setOpened(true))}>Add endpoint</Button>
      <FormDialog
        title="Add a webhook endpoint"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={create.isPending}
        error={create.error}
        failure="Could not add the endpoint"
        submitLabel="Add endpoint"
        size="lg"
      >
        <EndpointFields values={values} errors={errors} onChange={setValues} />
      </FormDialog>
      <SecretOnceModal keyName={revealed?.url ?? ''} secret={revealed?.secret ?? null} onClose={forget} toRotate="the endpoint's secret" />
    </>
  );
}

/** Enabled, or disabled and by whom: the platform disables an endpoint that keeps failing or answers 410 Gone. */
export function EndpointStateBadge({ endpoint }: { endpoint: WebhookEndpoint }) {
  const state = endpointState(endpoint);
  return (
    <Stack gap={2}>
      <Badge color={state.color} variant="light">
        {state.label}
      </Badge>
      {state.reason && <Text size="xs">{state.reason}</Text>}
    </Stack>
  );
}

const helper = columnsOf<WebhookEndpoint>();
const columns = helper.columns([
  helper.accessor('url', {
    header: 'URL',
    cell: (info) => (
      <Stack gap={2}>
        <EndpointLink id={info.row.original.id} url={info.getValue()} />
        {info.row.original.description && (
          <Text size="xs" c="dimmed">
            {info.row.original.description}
          </Text>
        )}
      </Stack>
    ),
  }),
  helper.accessor('eventTypes', { header: 'Events', cell: (info) => <Text size="xs">{eventTypesLabel(info.getValue())}</Text> }),
  helper.display({ id: 'state', header: 'Status', cell: (info) => <EndpointStateBadge endpoint={info.row.original} /> }),
  helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.display({ id: 'actions', header: 'Actions', cell: (info) => <EndpointActions endpoint={info.row.original} /> }),
]);

/** The session environment's webhook endpoints, without secrets: add, edit, enable or disable, rotate, test and delete. */
export function WebhooksSection() {
  const { environment } = usePrincipal();
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3">
          Webhooks
        </Title>
        <CreateEndpoint />
      </Group>
      <Text size="sm" c="dimmed">
        Endpoints of the {environment} environment: each event is POSTed to every endpoint subscribed to its type, signed (Standard
        Webhooks) with the endpoint&apos;s secret, and retried for about three days until it is answered with a 2xx.
      </Text>
      <PagedTable
        caption="Webhook endpoints, newest first"
        queryKey={[...WEBHOOKS_QUERY_KEY, 'endpoints', environment]}
        fetchPage={(page, signal) => api.call(webhookEndpointRoutes.list, { query: page, signal })}
        columns={columns}
        rowId={(endpoint) => endpoint.id}
        emptyTitle="No webhook endpoints"
        emptyDescription="Add an endpoint to be told of every change of money as it happens."
      />
    </Stack>
  );
}

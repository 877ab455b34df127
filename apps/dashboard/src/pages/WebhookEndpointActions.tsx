import { Alert, Button, Code, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  rotateWebhookSecretBodySchema,
  updateWebhookEndpointBodySchema,
  type WebhookEndpoint,
  webhookEndpointRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EventLink } from '../components/DeveloperLinks';
import { FormDialog } from '../components/FormDialog';
import { ErrorState } from '../components/States';
import { checkForm, type FieldErrors } from '../forms/schema';
import { SecretOnceModal } from './SecretOnceModal';
import { endpointBodyOf, endpointFormValues } from '../forms/webhook-endpoint';
import { EndpointFields, useEndpointSecretCall, WEBHOOKS_QUERY_KEY } from './WebhookEndpointFields';

const DAY = 24 * 3600;
const OVERLAP_CHOICES = [
  { value: '0', label: 'Stops at once' },
  { value: '3600', label: 'Signs 1 more hour' },
  { value: String(DAY), label: 'Signs 24 more hours' },
  { value: String(7 * DAY), label: 'Signs 7 more days (the most)' },
];

/** A change of the endpoint (PATCH), with the webhook lists read again once it is made. */
function useEndpointUpdate(endpoint: WebhookEndpoint, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof updateWebhookEndpointBodySchema>) =>
      api.call(webhookEndpointRoutes.update, { params: { id: endpoint.id }, body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
      onDone();
    },
  });
}

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(() => endpointFormValues(endpoint));
  const [errors, setErrors] = useState<FieldErrors>({});
  const edit = useEndpointUpdate(endpoint, () => setOpened(false));
  const open = () => {
    edit.reset();
    setValues(endpointFormValues(endpoint));
    setErrors({});
    setOpened(true);
  };
  const submit = () => {
    const entered = endpointBodyOf(values);
    if (!entered.ok) return setErrors(entered.errors);
    const checked = checkForm(updateWebhookEndpointBodySchema, { ...entered.fields, description: entered.fields.description ?? null });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    edit.mutate(checked.value);
  };
  return (
    <>
      <Button size="xs" variant="default" onClick={open} aria-label={`Edit ${endpoint.url}`}>
        Edit
      </Button>
      <FormDialog
        title={`Edit ${endpoint.url}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={edit.isPending}
        error={edit.error}
        failure="Could not change the endpoint"
        submitLabel="Save endpoint"
        size="lg"
      >
        <EndpointFields values={values} errors={errors} onChange={setValues} />
      </FormDialog>
    </>
  );
}

function ToggleEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [opened, setOpened] = useState(false);
  const toggle = useEndpointUpdate(endpoint, () => setOpened(false));
  const action = endpoint.enabled ? 'Disable' : 'Enable';
  const description = endpoint.enabled
    ? 'Its pending deliveries wait, and events recorded while it is disabled are not queued for it: replay them once it is enabled again.'
    : 'Its pending deliveries resume, and events recorded from now on are delivered to it again.';
  return (
    <>
      <Button size="xs" variant="default" onClick={() => (toggle.reset(), setOpened(true))} aria-label={`${action} ${endpoint.url}`}>
        {action}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`${action} ${endpoint.url}`}
        description={description}
        confirmLabel={`${action} endpoint`}
        onConfirm={() => toggle.mutate({ enabled: !endpoint.enabled })}
        pending={toggle.isPending}
        error={toggle.error}
      />
    </>
  );
}

function RotateEndpointSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [opened, setOpened] = useState(false);
  const [overlap, setOverlap] = useState(String(DAY));
  const [problem, setProblem] = useState<string | undefined>();
  const {
    mutation: rotate,
    revealed,
    forget,
  } = useEndpointSecretCall(
    (body: { expiresInSeconds: number }) => api.call(webhookEndpointRoutes.rotateSecret, { params: { id: endpoint.id }, body }),
    () => setOpened(false),
  );
  const submit = () => {
    const checked = checkForm(rotateWebhookSecretBodySchema, { expiresInSeconds: Number(overlap) });
    if (!checked.ok) return setProblem(checked.errors.expiresInSeconds ?? checked.errors.form);
    setProblem(undefined);
    rotate.mutate(checked.value);
  };
  return (
    <>
      <Button
        size="xs"
        variant="default"
        onClick={() => (rotate.reset(), setOverlap(String(DAY)), setOpened(true))}
        aria-label={`Rotate secret of ${endpoint.url}`}
      >
        Rotate secret
      </Button>
      <FormDialog
        title={`Rotate the secret of ${endpoint.url}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={rotate.isPending}
        error={rotate.error}
        failure="Could not rotate the secret"
        submitLabel="Rotate"
      >
        <Text size="sm">
          A new signing secret is issued and shown once. During the overlap each delivery is signed with both, so your receiver can switch
          to the new one without refusing any.
        </Text>
        <Select
          label="The current signing secret"
          data={OVERLAP_CHOICES}
          value={overlap}
          onChange={(value) => setOverlap(value ?? String(DAY))}
          allowDeselect={false}
          error={problem}
          data-autofocus
        />
      </FormDialog>
      <SecretOnceModal keyName={revealed?.url ?? ''} secret={revealed?.secret ?? null} onClose={forget} toRotate="the endpoint's secret" />
    </>
  );
}

function SendTestEvent({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const send = useMutation({
    mutationFn: () => api.call(webhookEndpointRoutes.sendTest, { params: { id: endpoint.id } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY }),
  });
  const close = () => setOpened(false);
  return (
    <>
      <Button size="xs" variant="default" onClick={() => (send.reset(), setOpened(true))} aria-label={`Send test to ${endpoint.url}`}>
        Send test
      </Button>
      <Modal opened={opened} onClose={close} title={`Send a test event to ${endpoint.url}`} centered>
        <Stack>
          {send.isSuccess ? (
            <Alert color="green" title="Test event sent" role="status">
              <Text size="sm">
                Event <EventLink id={send.data.id} /> is on its way; its delivery shows among the endpoint&apos;s deliveries.
              </Text>
            </Alert>
          ) : (
            <Text size="sm">
              A <Code>webhook_endpoint.test</Code> event is recorded and delivered to this endpoint alone within seconds, signed like every
              other.
            </Text>
          )}
          {send.isError && <ErrorState error={send.error} title="Send test failed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-autofocus>
              {send.isSuccess ? 'Done' : 'Cancel'}
            </Button>
            {!send.isSuccess && (
              <Button loading={send.isPending} onClick={() => send.mutate()}>
                Send test event
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function DeleteEndpoint({ endpoint, onDeleted }: { endpoint: WebhookEndpoint; onDeleted?: () => void }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.call(webhookEndpointRoutes.delete, { params: { id: endpoint.id } }),
    onSuccess: () => {
      setOpened(false);
      // Leave the endpoint's own page first: read again, it would only say that it is gone.
      onDeleted?.();
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
    },
  });
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => (remove.reset(), setOpened(true))} aria-label={`Delete ${endpoint.url}`}>
        Delete
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Delete ${endpoint.url}`}
        description="Nothing more is delivered to it, its pending deliveries included, and its deliveries are no longer listed. This cannot be undone."
        confirmLabel="Delete endpoint"
        color="red"
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      />
    </>
  );
}

/** What the session may do to an endpoint: each action shown only when its route's scope is held. */
export function EndpointActions({ endpoint, onDeleted }: { endpoint: WebhookEndpoint; onDeleted?: () => void }) {
  const { scopes } = usePrincipal();
  return (
    <Group gap="xs" wrap="nowrap">
      {canCall(scopes, webhookEndpointRoutes.sendTest) && <SendTestEvent endpoint={endpoint} />}
      {canCall(scopes, webhookEndpointRoutes.update) && <EditEndpoint endpoint={endpoint} />}
      {canCall(scopes, webhookEndpointRoutes.update) && <ToggleEndpoint endpoint={endpoint} />}
      {canCall(scopes, webhookEndpointRoutes.rotateSecret) && <RotateEndpointSecret endpoint={endpoint} />}
      {canCall(scopes, webhookEndpointRoutes.delete) && <DeleteEndpoint endpoint={endpoint} onDeleted={onDeleted} />}
    </Group>
  );
}

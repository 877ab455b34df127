import { Badge, Button, Code, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  replayWebhookBodySchema,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookEndpointRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import type { DeliveryFilters } from '../app/team-filters';
import { AppForm } from '../components/AppForm';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DateTime } from '../components/DateTime';
import { EventLink } from '../components/DeveloperLinks';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ErrorState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { localInputToTimestamp } from '../forms/datetime';
import { checkForm } from '../forms/schema';
import { attemptsLabel, lastAttempt, replayedLabel, responseColor, responseLabel, type WebhookAttempt } from '../format/webhooks';
import { WEBHOOKS_QUERY_KEY } from './WebhookEndpointFields';

/** A replay (one event, or the failed ones since a time), with the deliveries read again once the server took it. */
function useReplay(endpointId: string, onDone?: (replayed: number) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { eventId: string } | { since: string }) =>
      api.call(webhookEndpointRoutes.replay, { params: { id: endpointId }, body }),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
      onDone?.(answer.replayed);
    },
  });
}

function AttemptLine({ attempt }: { attempt: WebhookAttempt }) {
  return (
    <Stack gap={2}>
      <Text size="xs">
        <DateTime value={attempt.attemptedAt} /> · {responseLabel(attempt)} · {attempt.latencyMs} ms
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxWidth: 300 }}>
        {attempt.excerpt === '' ? '(empty answer)' : attempt.excerpt}
      </Code>
    </Stack>
  );
}

/** The count of a delivery's attempts, opening onto each one's time, answer, latency and the start of what came back. */
function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  const [open, setOpen] = useState(false);
  if (delivery.attempts.length === 0)
    return (
      <Text size="xs" c="dimmed">
        None yet
      </Text>
    );
  const id = `attempts-${delivery.id}`;
  return (
    <Stack gap={4} align="flex-start">
      <Button variant="subtle" size="compact-xs" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {attemptsLabel(delivery.attempts.length)}
      </Button>
      {/* A plain element: a Mantine Stack's display would override the hidden attribute. */}
      <div id={id} hidden={!open}>
        <Stack gap="xs">
          {delivery.attempts.map((attempt, index) => (
            <AttemptLine key={index} attempt={attempt} />
          ))}
        </Stack>
      </div>
    </Stack>
  );
}

function LastResponse({ delivery }: { delivery: WebhookDelivery }) {
  const attempt = lastAttempt(delivery);
  if (attempt === null) return '—';
  return (
    <Group gap={4} wrap="nowrap">
      <Badge color={responseColor(attempt)} variant="light" style={{ flexShrink: 0 }}>
        {responseLabel(attempt)}
      </Badge>
      <Text size="xs" style={{ whiteSpace: 'nowrap' }}>
        {attempt.latencyMs} ms
      </Text>
    </Group>
  );
}

function ReplayEvent({ delivery }: { delivery: WebhookDelivery }) {
  const [opened, setOpened] = useState(false);
  const replay = useReplay(delivery.endpointId, () => setOpened(false));
  // A pending delivery is on its way: the server leaves it as it is.
  if (delivery.status === 'pending') return null;
  return (
    <>
      <Button size="xs" variant="default" onClick={() => (replay.reset(), setOpened(true))} aria-label={`Replay ${delivery.eventId}`}>
        Replay
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Replay ${delivery.eventId}`}
        description="The event is delivered again, the same body under the same id (a receiver that keeps the ids it handled ignores it), on a fresh retry schedule."
        confirmLabel="Replay event"
        onConfirm={() => replay.mutate({ eventId: delivery.eventId })}
        pending={replay.isPending}
        error={replay.error}
      />
    </>
  );
}

const helper = columnsOf<WebhookDelivery>();
const columns = helper.columns([
  helper.accessor('eventType', {
    header: 'Event',
    cell: (info) => (
      <Stack gap={2} align="flex-start">
        <Code>{info.getValue()}</Code>
        <EventLink id={info.row.original.eventId} />
      </Stack>
    ),
  }),
  helper.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
  helper.display({ id: 'attempts', header: 'Attempts', cell: (info) => <Attempts delivery={info.row.original} /> }),
  helper.display({ id: 'last', header: 'Last answer', cell: (info) => <LastResponse delivery={info.row.original} /> }),
  helper.accessor('nextAttemptAt', {
    header: 'Next attempt',
    cell: (info) => {
      const next = info.getValue();
      return next === null ? '—' : <DateTime value={next} />;
    },
  }),
  helper.display({ id: 'replay', header: 'Replay', cell: (info) => <ReplayEvent delivery={info.row.original} /> }),
]);

function ReplayFailedSince({ endpointId }: { endpointId: string }) {
  const [since, setSince] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<string | null>(null);
  const replay = useReplay(endpointId, (replayed) => setOutcome(replayedLabel(replayed)));
  const submit = () => {
    setOutcome(null);
    const checked = checkForm(replayWebhookBodySchema, { since: localInputToTimestamp(since) ?? '' });
    if (!checked.ok) return setProblem(since.trim() === '' ? 'Choose a time' : (checked.errors.since ?? checked.errors.form));
    setProblem(undefined);
    replay.mutate(checked.value);
  };
  return (
    <Paper withBorder p="sm" component="section" aria-label="Replay failed deliveries">
      <AppForm onSubmit={submit}>
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Failed since"
            description="Your time zone: every delivery that failed since then is delivered again"
            type="datetime-local"
            value={since}
            onChange={(event) => setSince(event.currentTarget.value)}
            error={problem}
          />
          <Button type="submit" variant="default" loading={replay.isPending}>
            Replay failed
          </Button>
        </Group>
      </AppForm>
      {outcome && (
        <Text size="sm" mt="xs" aria-live="polite">
          {outcome}
        </Text>
      )}
      {replay.isError && <ErrorState error={replay.error} title="Replay failed" />}
    </Paper>
  );
}

const STATUS_CHOICES = [{ value: '', label: 'Any' }, ...WEBHOOK_DELIVERY_STATUSES.map((status) => ({ value: status, label: status }))];

/** An endpoint's deliveries, newest first, read again while any on the page is pending; replay of one, or of the failed since a time. */
export function WebhookDeliveriesSection({
  endpoint,
  filters,
  onFilters,
}: {
  endpoint: WebhookEndpoint;
  filters: DeliveryFilters;
  onFilters: (filters: DeliveryFilters) => void;
}) {
  return (
    <Stack>
      <Title order={2} size="h3">
        Deliveries
      </Title>
      <Group align="flex-end" justify="space-between" wrap="wrap">
        <Group component="search" aria-label="Filter deliveries">
          <Select
            label="Status"
            data={STATUS_CHOICES}
            value={filters.status ?? ''}
            onChange={(value) => {
              const status = WEBHOOK_DELIVERY_STATUSES.find((each) => each === value);
              onFilters(status ? { status } : {});
            }}
            allowDeselect={false}
            w={160}
          />
        </Group>
        <ReplayFailedSince endpointId={endpoint.id} />
      </Group>
      <PagedTable
        key={filters.status ?? 'any'}
        caption="Deliveries, newest first"
        queryKey={[...WEBHOOKS_QUERY_KEY, 'deliveries', endpoint.id, filters]}
        fetchPage={(page, signal) =>
          api.call(webhookEndpointRoutes.deliveries, { params: { id: endpoint.id }, query: { ...filters, ...page }, signal })
        }
        columns={columns}
        rowId={(delivery) => delivery.id}
        refreshWhile={(page) => page.data.some((delivery) => delivery.status === 'pending')}
        emptyTitle="No deliveries"
        emptyDescription={
          filters.status === undefined
            ? 'Deliveries show here once an event the endpoint subscribes to happens, or a test event is sent.'
            : `No ${filters.status} delivery.`
        }
      />
    </Stack>
  );
}

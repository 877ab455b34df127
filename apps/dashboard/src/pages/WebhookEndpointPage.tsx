import { Code, Group, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { webhookEndpointRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { DateTime } from '../components/DateTime';
import { DetailTable } from '../components/DetailTable';
import { RouterAnchor } from '../components/links';
import { ErrorState, LoadingState } from '../components/States';
import { eventTypesLabel } from '../format/webhooks';
import { EndpointActions } from './WebhookEndpointActions';
import { WebhookDeliveriesSection } from './WebhookDeliveriesSection';
import { WEBHOOKS_QUERY_KEY } from './WebhookEndpointFields';
import { EndpointStateBadge } from './WebhooksSection';

const routeApi = getRouteApi('/_session/developers/webhooks/$endpointId');

/** One webhook endpoint: what it receives, its state, its actions, and its deliveries with their attempts. */
export function WebhookEndpointPage() {
  const { endpointId } = routeApi.useParams();
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const endpoint = useQuery({
    queryKey: [...WEBHOOKS_QUERY_KEY, 'endpoint', endpointId],
    queryFn: ({ signal }) => api.call(webhookEndpointRoutes.get, { params: { id: endpointId }, signal }),
  });
  const back = (
    <RouterAnchor to="/developers" search={{ tab: 'webhooks' }} size="sm">
      All webhook endpoints
    </RouterAnchor>
  );
  if (endpoint.isPending) return <LoadingState label="Loading the webhook endpoint" />;
  if (endpoint.isError)
    return (
      <Stack>
        <ErrorState error={endpoint.error} title="Could not load the webhook endpoint" onRetry={() => void endpoint.refetch()} />
        {back}
      </Stack>
    );
  const shown = endpoint.data;
  const previous = shown.previousSecretExpiresAt;
  return (
    <Stack>
      <PageTitle>{`Webhook endpoint ${shown.id}`}</PageTitle>
      {back}
      <DetailTable
        caption="Endpoint"
        rows={[
          { label: 'URL', value: <Code>{shown.url}</Code> },
          { label: 'Description', value: shown.description ?? '—' },
          { label: 'Events', value: eventTypesLabel(shown.eventTypes) },
          { label: 'Status', value: <EndpointStateBadge endpoint={shown} /> },
          { label: 'Previous secret signs until', value: previous === null ? '—' : <DateTime value={previous} /> },
          { label: 'Environment', value: shown.environment },
          { label: 'Created', value: <DateTime value={shown.createdAt} /> },
        ]}
      />
      <Group>
        <EndpointActions endpoint={shown} onDeleted={() => void navigate({ to: '/developers', search: { tab: 'webhooks' } })} />
      </Group>
      <WebhookDeliveriesSection endpoint={shown} filters={filters} onFilters={(next) => void navigate({ search: next, replace: true })} />
    </Stack>
  );
}

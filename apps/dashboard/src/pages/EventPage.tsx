import { Code, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { eventRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { PageTitle } from '../app/Shell';
import { DateTime } from '../components/DateTime';
import { DetailTable } from '../components/DetailTable';
import { RouterAnchor } from '../components/links';
import { ErrorState, LoadingState } from '../components/States';
import { prettyJson } from '../format/json';

const routeApi = getRouteApi('/_session/developers/events/$eventId');

/**
 * One event of the log, and its JSON as its webhooks deliver it: the answer's own text, laid out
 * with indentation only, so amounts stay the decimal strings the API wrote and no number is
 * rounded on its way to the screen.
 */
export function EventPage() {
  const { eventId } = routeApi.useParams();
  const event = useQuery({
    queryKey: ['events', 'event', eventId],
    queryFn: ({ signal }) => api.callText(eventRoutes.get, { params: { id: eventId }, signal }),
    // An event never changes.
    staleTime: Infinity,
  });
  const back = (
    <RouterAnchor to="/developers" search={{ tab: 'events' }} size="sm">
      The event log
    </RouterAnchor>
  );
  if (event.isPending) return <LoadingState label="Loading the event" />;
  if (event.isError)
    return (
      <Stack>
        <ErrorState error={event.error} title="Could not load the event" onRetry={() => void event.refetch()} />
        {back}
      </Stack>
    );
  const { value, text } = event.data;
  const objectId = value.data.object.id;
  return (
    <Stack>
      <PageTitle>{`Event ${value.id}`}</PageTitle>
      {back}
      <DetailTable
        caption="Event"
        rows={[
          { label: 'Type', value: <Code>{value.type}</Code> },
          { label: 'When', value: <DateTime value={value.createdAt} /> },
          { label: 'Environment', value: value.environment },
          { label: 'Object', value: typeof objectId === 'string' ? <Code>{objectId}</Code> : '—' },
        ]}
      />
      <Title order={2} size="h3">
        JSON
      </Title>
      <Text size="sm" c="dimmed">
        The body each webhook delivery of this event carries, byte for byte but for the indentation.
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {prettyJson(text)}
      </Code>
    </Stack>
  );
}

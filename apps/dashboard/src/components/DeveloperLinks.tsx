import { RouterAnchor } from './links';

/** An event by its id, linking to its page (its JSON as the webhooks send it). */
export function EventLink({ id }: { id: string }) {
  return (
    <RouterAnchor to="/developers/events/$eventId" params={{ eventId: id }} ff="monospace" size="xs">
      {id}
    </RouterAnchor>
  );
}

/** A webhook endpoint by its URL, linking to its page (its deliveries). */
export function EndpointLink({ id, url }: { id: string; url: string }) {
  return (
    <RouterAnchor to="/developers/webhooks/$endpointId" params={{ endpointId: id }} size="sm" style={{ overflowWrap: 'anywhere' }}>
      {url}
    </RouterAnchor>
  );
}

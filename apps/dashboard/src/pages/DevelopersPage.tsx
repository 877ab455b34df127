import { Tabs } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { apiKeyRoutes, eventRoutes, requestLogRoutes, type RouteContract, webhookEndpointRoutes } from '@wallet/contracts';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import {
  DEVELOPER_TABS,
  type DeveloperTab,
  type EventFilters,
  eventFiltersOf,
  type RequestLogFilters,
  requestLogFiltersOf,
} from '../app/team-filters';
import { canCall } from '../auth/scopes';
import { Empty } from '../components/States';
import { ApiKeysSection } from './ApiKeysSection';
import { EventsSection } from './EventsSection';
import { RequestLogsSection } from './RequestLogsSection';
import { WebhooksSection } from './WebhooksSection';

const routeApi = getRouteApi('/_session/developers');

/** Each tab, and the list it reads: the tab is shown only to a session that may read it. */
const TABS: Record<DeveloperTab, { label: string; reads: RouteContract }> = {
  keys: { label: 'API keys', reads: apiKeyRoutes.list },
  webhooks: { label: 'Webhooks', reads: webhookEndpointRoutes.list },
  events: { label: 'Events', reads: eventRoutes.list },
  logs: { label: 'Request logs', reads: requestLogRoutes.list },
};

/**
 * API keys, webhooks, the event log and request logs, each tab shown only to a session that may
 * read it (a finance viewer reads events and logs, not keys or endpoints).
 */
export function DevelopersPage() {
  const search = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const { scopes } = usePrincipal();
  const allowed = DEVELOPER_TABS.filter((tab) => canCall(scopes, TABS[tab].reads));
  const tab = search.tab !== undefined && allowed.includes(search.tab) ? search.tab : allowed[0];
  if (tab === undefined) {
    return (
      <>
        <PageTitle>Developers</PageTitle>
        <Empty title="Nothing to show" description="Your role reads none of API keys, webhooks, events and request logs." />
      </>
    );
  }
  const setTab = (next: string | null) => {
    const chosen = DEVELOPER_TABS.find((each) => each === next);
    if (chosen) void navigate({ search: (current) => ({ ...current, tab: chosen }) });
  };
  // A part's filters replace its own and keep the tab and the key list's environment; the other parts' are dropped.
  const withFilters = (filters: RequestLogFilters | EventFilters) =>
    void navigate({ search: (current) => ({ tab: current.tab, environment: current.environment, ...filters }) });
  return (
    <>
      <PageTitle>Developers</PageTitle>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List aria-label="Developer tools" mb="md">
          {allowed.map((each) => (
            <Tabs.Tab key={each} value={each}>
              {TABS[each].label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="keys">
          <ApiKeysSection
            environment={search.environment}
            onEnvironment={(environment) => void navigate({ search: (current) => ({ ...current, environment }) })}
          />
        </Tabs.Panel>
        <Tabs.Panel value="webhooks">
          <WebhooksSection />
        </Tabs.Panel>
        <Tabs.Panel value="events">
          <EventsSection filters={eventFiltersOf(search)} onApply={withFilters} />
        </Tabs.Panel>
        <Tabs.Panel value="logs">
          <RequestLogsSection filters={requestLogFiltersOf(search)} onApply={withFilters} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

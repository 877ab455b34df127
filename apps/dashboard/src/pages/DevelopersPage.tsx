import { Tabs } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { apiKeyRoutes, requestLogRoutes } from '@wallet/contracts';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { DEVELOPER_TABS, requestLogFiltersOf } from '../app/team-filters';
import { canCall } from '../auth/scopes';
import { Empty } from '../components/States';
import { ApiKeysSection } from './ApiKeysSection';
import { RequestLogsSection } from './RequestLogsSection';

const routeApi = getRouteApi('/_session/developers');

/** API keys and request logs, each tab shown only to a session that may read it (a finance viewer reads logs, not keys). */
export function DevelopersPage() {
  const search = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const { scopes } = usePrincipal();
  const allowed = DEVELOPER_TABS.filter((tab) => canCall(scopes, tab === 'keys' ? apiKeyRoutes.list : requestLogRoutes.list));
  const tab = search.tab !== undefined && allowed.includes(search.tab) ? search.tab : allowed[0];
  if (tab === undefined) {
    return (
      <>
        <PageTitle>Developers</PageTitle>
        <Empty title="Nothing to show" description="Your role reads neither API keys nor request logs." />
      </>
    );
  }
  const setTab = (next: string | null) => {
    if (next === 'keys' || next === 'logs') void navigate({ search: (current) => ({ ...current, tab: next }) });
  };
  return (
    <>
      <PageTitle>Developers</PageTitle>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List aria-label="Developer tools" mb="md">
          {allowed.includes('keys') && <Tabs.Tab value="keys">API keys</Tabs.Tab>}
          {allowed.includes('logs') && <Tabs.Tab value="logs">Request logs</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="keys">
          <ApiKeysSection
            environment={search.environment}
            onEnvironment={(environment) => void navigate({ search: (current) => ({ ...current, environment }) })}
          />
        </Tabs.Panel>
        <Tabs.Panel value="logs">
          <RequestLogsSection
            filters={requestLogFiltersOf(search)}
            onApply={(filters) =>
              void navigate({ search: (current) => ({ tab: current.tab, environment: current.environment, ...filters }) })
            }
          />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

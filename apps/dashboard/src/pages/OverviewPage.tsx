import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import {
  analyticsRoutes,
  payoutRoutes,
  reconciliationRoutes,
  type RouteContract,
  treasuryRoutes,
  withdrawalRoutes,
} from '@wallet/contracts';
import { lazy, type ReactNode, Suspense } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { Empty, ErrorState, LoadingState } from '../components/States';
import { checkTitle } from '../books/reconciliation';
import { countOf, usePendingCases } from '../app/pending';
import { TreasuryBalancesTable } from '../components/TreasuryBalancesTable';

// ECharts is large: it loads with this screen's charts only, never with the app's first page.
const AnalyticsCharts = lazy(() => import('./AnalyticsCharts'));

/** A card of the overview, shown only when the session may read what it shows. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function TreasuryBalances() {
  const balances = useQuery({ queryKey: ['treasury', 'balances'], queryFn: ({ signal }) => api.call(treasuryRoutes.balances, { signal }) });
  if (balances.isPending) return <LoadingState label="Loading balances" />;
  if (balances.isError)
    return <ErrorState error={balances.error} title="Could not load the treasury balances" onRetry={() => void balances.refetch()} />;
  if (balances.data.data.length === 0)
    return <Empty title="No balances yet" description="Balances appear once money moves in a currency." />;
  return <TreasuryBalancesTable rows={balances.data.data} withCommission={false} />;
}

/** Pending cases of one maker-checker list, counted from its first page of the largest size: "200+" is all a glance needs. */
function PendingCount({ label, kind }: { label: string; kind: 'payouts' | 'withdrawals' }) {
  const pending = usePendingCases(kind, usePrincipal().scopes);
  if (pending.isPending) return <LoadingState label={`Counting ${label.toLowerCase()}`} />;
  if (pending.isError) return <ErrorState error={pending.error} title={`Could not count ${label.toLowerCase()}`} />;
  const count = countOf(pending.data);
  return (
    <Group justify="space-between">
      <Text>{label}</Text>
      <Badge size="lg" variant={count === '0' ? 'outline' : 'filled'}>
        {count}
      </Badge>
    </Group>
  );
}

/** The tenant's reconciliation checks as of now (each goes on from its checkpoint, so this is cheap). */
function Reconciliation() {
  const result = useQuery({
    queryKey: ['reconciliation'],
    queryFn: ({ signal }) => api.call(reconciliationRoutes.tenant, { signal }),
    staleTime: 5 * 60_000,
  });
  if (result.isPending) return <LoadingState label="Running the reconciliation checks" />;
  if (result.isError)
    return <ErrorState error={result.error} title="Could not run the reconciliation checks" onRetry={() => void result.refetch()} />;
  const mismatched = result.data.checks.filter((check) => check.status === 'mismatch');
  return (
    <Stack gap="xs">
      <Group gap="sm">
        <Badge color={result.data.status === 'ok' ? 'green' : 'red'} size="lg">
          {result.data.status === 'ok' ? 'All checks pass' : 'Mismatch'}
        </Badge>
        <Text size="sm" c="dimmed">
          Checked <DateTime value={result.data.checkedAt} />
        </Text>
      </Group>
      {mismatched.length > 0 && (
        <Text size="sm">Mismatched: {mismatched.map((check) => `${checkTitle(check.name)} (${check.mismatches.length})`).join(', ')}</Text>
      )}
    </Stack>
  );
}

function Analytics() {
  const analytics = useQuery({ queryKey: ['analytics'], queryFn: ({ signal }) => api.call(analyticsRoutes.tenant, { query: {}, signal }) });
  if (analytics.isPending) return <LoadingState label="Loading analytics" />;
  if (analytics.isError)
    return <ErrorState error={analytics.error} title="Could not load analytics" onRetry={() => void analytics.refetch()} />;
  if (analytics.data.currencies.length === 0) return <Empty title="No activity in the last 30 days" />;
  return (
    <Suspense fallback={<LoadingState label="Loading charts" />}>
      <AnalyticsCharts analytics={analytics.data} />
    </Suspense>
  );
}

export function OverviewPage() {
  const principal = usePrincipal();
  const may = (route: RouteContract) => canCall(principal.scopes, route);
  const approvals = [
    may(payoutRoutes.list) && <PendingCount key="payouts" label="Payouts awaiting approval" kind="payouts" />,
    may(withdrawalRoutes.list) && <PendingCount key="withdrawals" label="Withdrawals awaiting approval" kind="withdrawals" />,
  ].filter(Boolean);
  return (
    <Stack>
      <PageTitle>Overview</PageTitle>
      {may(treasuryRoutes.balances) && (
        <Section title="Treasury balances">
          <TreasuryBalances />
        </Section>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {approvals.length > 0 && (
          <Section title="Pending approvals">
            <Stack>{approvals}</Stack>
          </Section>
        )}
        {may(reconciliationRoutes.tenant) && (
          <Section title="Reconciliation">
            <Reconciliation />
          </Section>
        )}
      </SimpleGrid>
      {may(analyticsRoutes.tenant) && (
        <Section title="Volume and fee revenue, last 30 days">
          <Analytics />
        </Section>
      )}
    </Stack>
  );
}

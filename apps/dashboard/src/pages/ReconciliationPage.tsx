import { Badge, Button, Card, Group, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type ReconciliationFullRun, type ReconciliationResult, reconciliationRoutes, statementMatchRoutes } from '@wallet/contracts';
import { useEffect } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { checkTitle, isRunFinished, type Mismatch, mismatchCell, mismatchFields, runProgress } from '../books/reconciliation';
import { fieldLabel } from '../format/words';
import { EntryLink, WalletLink } from '../components/BooksLinks';
import { RouterAnchor } from '../components/links';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';

const routeApi = getRouteApi('/_session/reconciliation');

/** The overview's query too: the checks asked now, kept a few minutes (each run reads only what is new). */
export const RECONCILIATION_QUERY_KEY = ['reconciliation'] as const;
const RUN_POLL_MS = 2000;

function MismatchValue({ row, field }: { row: Mismatch; field: string }) {
  const cell = mismatchCell(row, field);
  if (cell.type === 'money') return <Money amount={cell.amount} currencyCode={cell.currencyCode} />;
  if (cell.type === 'entry') return <EntryLink id={cell.id} />;
  if (cell.type === 'wallet') return <WalletLink id={cell.id} />;
  if (cell.type === 'deposit')
    return (
      <RouterAnchor to="/deposits/$depositId" params={{ depositId: cell.id }} ff="monospace" size="xs">
        {cell.id}
      </RouterAnchor>
    );
  if (cell.type === 'statementLine')
    return (
      <RouterAnchor to="/reconciliation/workbench" search={{ line: cell.id }} size="xs">
        {`Line ${cell.id}: resolve`}
      </RouterAnchor>
    );
  return <Text size="xs">{cell.text}</Text>;
}

/** A check's mismatches as the check reported them (at most its first hundred): every field a column. */
function MismatchTable({ name, mismatches }: { name: string; mismatches: Mismatch[] }) {
  const fields = mismatchFields(mismatches);
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped>
        <Table.Caption>Mismatches: {name}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {fields.map((field) => (
              <Table.Th key={field} scope="col">
                {fieldLabel(field)}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {mismatches.map((row, index) => (
            <Table.Tr key={index}>
              {fields.map((field) => (
                <Table.Td key={field}>
                  <MismatchValue row={row} field={field} />
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function StatusBadge({ status }: { status: 'ok' | 'mismatch' }) {
  return (
    <Badge color={status === 'ok' ? 'green' : 'red'} variant="light">
      {status}
    </Badge>
  );
}

function coverageText(result: ReconciliationResult): string | null {
  const journal = result.coverage?.journal;
  if (!result.coverage) return null;
  const mode = result.coverage.mode === 'full' ? 'Full run from zero' : 'Since the last checkpoints';
  return journal ? `${mode}: ${journal.entries} entries, ${journal.lines} lines, ${journal.accounts} accounts read.` : `${mode}.`;
}

/** A result: its status, when, what it read, and each check with its mismatches. */
function ResultView({ result, headingLevel }: { result: ReconciliationResult; headingLevel: 3 | 4 }) {
  const coverage = coverageText(result);
  return (
    <Stack gap="sm">
      <Group gap="sm">
        <Badge color={result.status === 'ok' ? 'green' : 'red'} size="lg">
          {result.status === 'ok' ? 'All checks pass' : 'Mismatch'}
        </Badge>
        <Text size="sm" c="dimmed">
          Checked <DateTime value={result.checkedAt} />
        </Text>
      </Group>
      {coverage && <Text size="sm">{coverage}</Text>}
      {result.checks.map((check) => (
        <Card key={check.name} withBorder component="section" aria-label={`Check: ${checkTitle(check.name)}`}>
          <Group gap="sm" mb={check.mismatches.length > 0 ? 'sm' : 0}>
            <Title order={headingLevel} size="h5">
              {checkTitle(check.name)}
            </Title>
            <StatusBadge status={check.status} />
            <Text size="sm" c="dimmed">
              {check.mismatches.length === 0 ? 'no mismatches' : `${check.mismatches.length} mismatches`}
            </Text>
          </Group>
          {check.mismatches.length > 0 && <MismatchTable name={checkTitle(check.name)} mismatches={check.mismatches} />}
        </Card>
      ))}
    </Stack>
  );
}

/** The checks asked now: the latest result, and a button to ask again. */
function ChecksNow() {
  const result = useQuery({
    queryKey: RECONCILIATION_QUERY_KEY,
    queryFn: ({ signal }) => api.call(reconciliationRoutes.tenant, { signal }),
    staleTime: 5 * 60_000,
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Latest checks
        </Title>
        <Button onClick={() => void result.refetch()} loading={result.isFetching}>
          Run checks now
        </Button>
      </Group>
      {result.isPending ? (
        <LoadingState label="Running the reconciliation checks" />
      ) : result.isError ? (
        <ErrorState error={result.error} title="Could not run the reconciliation checks" onRetry={() => void result.refetch()} />
      ) : (
        <ResultView result={result.data} headingLevel={3} />
      )}
    </Stack>
  );
}

/** A full run followed until it ends: its state, how far it is, then its result or why it stopped. */
function FullRunView({ runId }: { runId: string }) {
  const queryClient = useQueryClient();
  const run = useQuery({
    queryKey: ['reconciliation-run', runId],
    queryFn: ({ signal }) => api.call(reconciliationRoutes.getTenantRun, { params: { id: runId }, signal }),
    refetchInterval: (query) => (query.state.data && isRunFinished(query.state.data.state) ? false : RUN_POLL_MS),
  });
  const finished = run.data !== undefined && isRunFinished(run.data.state);
  useEffect(() => {
    // A finished run moved the checkpoints: the checks asked now read from there.
    if (finished) void queryClient.invalidateQueries({ queryKey: RECONCILIATION_QUERY_KEY });
  }, [finished, queryClient]);
  if (run.isPending) return <LoadingState label="Loading the run" />;
  if (run.isError) return <ErrorState error={run.error} title="Could not load the run" onRetry={() => void run.refetch()} />;
  return <FullRunDetails run={run.data} />;
}

function FullRunDetails({ run }: { run: ReconciliationFullRun }) {
  const progress = runProgress(run);
  return (
    <Stack gap="sm">
      <Group gap="sm">
        <Text size="sm" ff="monospace">
          {run.id}
        </Text>
        <Badge color={run.state === 'failed' ? 'red' : run.state === 'succeeded' ? 'green' : 'blue'} variant="light">
          {run.state}
        </Badge>
        <Text size="sm" c="dimmed">
          Started <DateTime value={run.startedAt ?? run.createdAt} />
          {run.finishedAt && (
            <>
              {' '}
              · finished <DateTime value={run.finishedAt} />
            </>
          )}
        </Text>
      </Group>
      <Progress
        value={progress.percent ?? 100}
        animated={progress.percent === null}
        striped={progress.percent === null}
        aria-label="Full run progress"
      />
      <Text size="sm" aria-live="polite">
        {progress.label}
      </Text>
      {run.error && <ErrorState error={new Error(run.error)} title="The run stopped" />}
      {run.result && <ResultView result={run.result} headingLevel={4} />}
    </Stack>
  );
}

/** A full re-verification from zero, started by the tenant's admin and followed by whoever may read the checks. */
function FullRuns({ runId, mayStart }: { runId: string | undefined; mayStart: boolean }) {
  const navigate = routeApi.useNavigate();
  const queryClient = useQueryClient();
  const start = useMutation({
    mutationFn: () => api.call(reconciliationRoutes.startTenantRun, {}),
    onSuccess: (run) => {
      queryClient.setQueryData(['reconciliation-run', run.id], run);
      void navigate({ search: { run: run.id } });
    },
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Full re-verification
        </Title>
        {mayStart && (
          <Button variant="light" onClick={() => start.mutate()} loading={start.isPending}>
            Start a full run
          </Button>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        The checks above read only what came after the last checkpoints. A full run re-verifies every account, entry and business record
        from zero, in the background.
      </Text>
      {start.isError && <ErrorState error={start.error} title="Could not start a full run" />}
      {runId && <FullRunView key={runId} runId={runId} />}
    </Stack>
  );
}

export function ReconciliationPage() {
  const { run } = routeApi.useSearch();
  const principal = usePrincipal();
  const mayStart = canCall(principal.scopes, reconciliationRoutes.startTenantRun);
  const mayFollow = canCall(principal.scopes, reconciliationRoutes.getTenantRun);
  return (
    <Stack gap="xl">
      <PageTitle>Reconciliation</PageTitle>
      {canCall(principal.scopes, statementMatchRoutes.list) && (
        <RouterAnchor to="/reconciliation/workbench" size="sm">
          Open the workbench: match unmatched statement lines and pending slips
        </RouterAnchor>
      )}
      {canCall(principal.scopes, reconciliationRoutes.tenant) && <ChecksNow />}
      {mayFollow && (mayStart || run !== undefined) && <FullRuns runId={run} mayStart={mayStart} />}
    </Stack>
  );
}

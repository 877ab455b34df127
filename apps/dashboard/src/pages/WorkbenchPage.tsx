import { Group, Radio, SimpleGrid, Stack, Text } from '@mantine/core';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type Deposit, depositRoutes, type StatementLineRecord, statementMatchRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ProposeMatch, SlipLink } from '../components/ProposeMatch';
import { MatchRuleCard, PendingMatches, Suggestions, WorkbenchCard } from './WorkbenchSections';

const routeApi = getRouteApi('/_session/reconciliation/workbench');

const PENDING_SLIPS = { source: 'bank_slip', status: 'pending' } as const;
const UNMATCHED = { matched: 'false' } as const;

/** Picks one row of a side: a radio named by what it picks. */
function Pick({ label, checked, onPick }: { label: string; checked: boolean; onPick: () => void }) {
  return <Radio aria-label={label} checked={checked} onChange={onPick} />;
}

function slipColumns(chosen: string | undefined, choose: (id: string) => void) {
  const helper = columnsOf<Deposit>();
  return helper.columns([
    helper.display({
      id: 'pick',
      header: 'Choose',
      cell: ({ row }) => (
        <Pick label={`Choose slip ${row.original.id}`} checked={chosen === row.original.id} onPick={() => choose(row.original.id)} />
      ),
    }),
    helper.display({ id: 'id', header: 'Slip', cell: ({ row }) => <SlipLink id={row.original.id} /> }),
    helper.display({
      id: 'amount',
      header: 'Amount',
      cell: ({ row }) => <Money amount={row.original.amount} currencyCode={row.original.currencyCode} />,
    }),
    helper.display({
      id: 'reference',
      header: 'Reference',
      cell: ({ row }) => `${row.original.bankCode ?? ''} ${row.original.slipReference ?? ''}`,
    }),
  ]);
}

function lineColumns(chosen: string | undefined, choose: (id: string) => void) {
  const helper = columnsOf<StatementLineRecord>();
  return helper.columns([
    helper.display({
      id: 'pick',
      header: 'Choose',
      cell: ({ row }) => (
        <Pick label={`Choose line ${row.original.id}`} checked={chosen === row.original.id} onPick={() => choose(row.original.id)} />
      ),
    }),
    helper.accessor('date', { header: 'Value date' }),
    helper.display({
      id: 'amount',
      header: 'Amount',
      cell: ({ row }) => <Money amount={row.original.amount} currencyCode={row.original.currencyCode} />,
    }),
    helper.display({ id: 'reference', header: 'Reference', cell: ({ row }) => `${row.original.bankCode} ${row.original.reference}` }),
  ]);
}

/** Pending slips and unmatched lines side by side: choosing one of each offers their match. */
function SideBySide() {
  const { line, slip } = routeApi.useSearch();
  const navigate = useNavigate({ from: '/reconciliation/workbench' });
  const choose = (chosen: { line?: string; slip?: string }) =>
    void navigate({ search: (before) => ({ ...before, ...chosen }), replace: true });
  const mayPropose = canCall(usePrincipal().scopes, statementMatchRoutes.propose);
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text size="sm">
          {slip && line ? `Slip ${slip} and line ${line} chosen.` : 'Choose a pending slip and an unmatched line to match them by hand.'}
        </Text>
        {slip && line && mayPropose && <ProposeMatch depositId={slip} lineId={line} onDone={() => void navigate({ search: {} })} />}
      </Group>
      <SimpleGrid cols={{ base: 1, xl: 2 }}>
        <WorkbenchCard id="pending-slips" title="Pending slips">
          <PagedTable
            caption="Bank slips awaiting their statement line, newest first"
            queryKey={['deposits', PENDING_SLIPS, 'workbench']}
            fetchPage={(page, signal) => api.call(depositRoutes.list, { query: { ...PENDING_SLIPS, ...page }, signal })}
            columns={slipColumns(slip, (id) => choose({ slip: id }))}
            rowId={(deposit) => deposit.id}
            emptyTitle="No pending slips"
          />
        </WorkbenchCard>
        <WorkbenchCard id="unmatched-lines" title="Unmatched statement lines">
          <PagedTable
            caption="Statement lines no slip accounts for, newest first"
            queryKey={['statement-lines', UNMATCHED, 'workbench']}
            fetchPage={(page, signal) => api.call(depositRoutes.statementLines, { query: { ...UNMATCHED, ...page }, signal })}
            columns={lineColumns(line, (id) => choose({ line: id }))}
            rowId={(each) => each.id}
            emptyTitle="No unmatched lines"
          />
        </WorkbenchCard>
      </SimpleGrid>
    </Stack>
  );
}

/**
 * The reconciliation workbench: what the rule suggests, matches by hand, and the matches awaiting
 * a checker, whose approval credits the slip through the ledger and clears the unmatched line.
 */
export function WorkbenchPage() {
  const { scopes } = usePrincipal();
  return (
    <Stack gap="lg">
      <PageTitle>Reconciliation workbench</PageTitle>
      <PendingMatches />
      {canCall(scopes, statementMatchRoutes.suggestions) && <Suggestions />}
      <SideBySide />
      <MatchRuleCard />
    </Stack>
  );
}

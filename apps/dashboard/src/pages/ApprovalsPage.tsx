import { Checkbox, SegmentedControl, Stack, Title } from '@mantine/core';
import { type PayoutCase, payoutRoutes, type Withdrawal, withdrawalRoutes } from '@wallet/contracts';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { api } from '../api/browser';
import { fillingPages, type PageFetcher } from '../api/pages';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { CaseDecision } from '../components/CaseDecision';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { type Checker, describeDestination, formatAge, notAwaitingReason } from '../format/cases';
import { MemberName } from '../components/MemberName';
import { BulkDecision } from '../components/BulkDecision';
import { type Awaiting, AWAITING_VIEWS } from '../app/money-filters';
import { ApprovalPoliciesSection } from './ApprovalPoliciesSection';

const routeApi = getRouteApi('/_session/approvals');

const PENDING = { status: 'pending' } as const;

/** The clock the ages are counted from, moving on every minute. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function Age({ since, now }: { since: string; now: number }) {
  return <time dateTime={since}>{formatAge(since, now)}</time>;
}

/** A pending case as the inbox lists it: a payout or a withdrawal. */
type InboxCase = PayoutCase | Withdrawal;

/** What differs between the inbox's two lists: the case's noun and link, its fee and destination, what deciding it does, and its decision routes. */
interface CaseKind<Case extends InboxCase> {
  noun: 'payout' | 'withdrawal';
  /** The list's name, also its queries' key. */
  plural: 'payouts' | 'withdrawals';
  title: string;
  header: string;
  list: PageFetcher<Case>;
  link: (id: string) => ReactNode;
  fee: (decided: Case) => ReactNode;
  destination: (decided: Case) => string;
  summary: (decided: Case) => ReactNode;
  routes: typeof payoutRoutes | typeof withdrawalRoutes;
}

/** The cases a bulk decision takes, by id, and whether one may be taken (it awaits this checker). */
interface Selection {
  selected: ReadonlySet<string>;
  toggle: (id: string) => void;
  selectable: (decided: InboxCase) => boolean;
}

function caseColumns<Case extends InboxCase>(kind: CaseKind<Case>, mayDecide: boolean, now: number, selection: Selection) {
  const helper = columnsOf<Case>();
  const select = helper.display({
    id: 'select',
    header: 'Select',
    cell: ({ row }) =>
      selection.selectable(row.original) && (
        <Checkbox
          aria-label={`Select ${kind.noun} ${row.original.id}`}
          checked={selection.selected.has(row.original.id)}
          onChange={() => selection.toggle(row.original.id)}
        />
      ),
  });
  return helper.columns([
    ...(mayDecide ? [select] : []),
    helper.display({ id: 'id', header: kind.header, cell: ({ row }) => kind.link(row.original.id) }),
    // Beside the case id: the decisions stay on the screen however wide the other columns are.
    helper.display({
      id: 'decision',
      header: 'Decision',
      cell: ({ row }) => {
        const decided = row.original;
        return (
          <CaseDecision
            decidable={decided}
            noun={kind.noun}
            size="xs"
            summary={kind.summary(decided)}
            mayDecide={mayDecide}
            approve={(body, idempotencyKey) => api.call(kind.routes.approve, { params: { id: decided.id }, body, idempotencyKey })}
            reject={(body, idempotencyKey) => api.call(kind.routes.reject, { params: { id: decided.id }, body, idempotencyKey })}
          />
        );
      },
    }),
    helper.display({
      id: 'requester',
      header: 'Requester',
      cell: ({ row }) => <MemberName memberId={row.original.requestedBy} />,
    }),
    helper.display({
      id: 'amount',
      header: 'Amount',
      cell: ({ row }) => <Money amount={row.original.amount} currencyCode={row.original.currencyCode} />,
    }),
    helper.display({ id: 'fee', header: 'Fee', cell: ({ row }) => kind.fee(row.original) }),
    helper.display({ id: 'destination', header: 'Destination', cell: ({ row }) => kind.destination(row.original) }),
    helper.display({ id: 'waiting', header: 'Waiting', cell: ({ row }) => <Age since={row.original.createdAt} now={now} /> }),
  ]);
}

const PAYOUTS: CaseKind<PayoutCase> = {
  noun: 'payout',
  plural: 'payouts',
  title: 'Payouts awaiting approval',
  header: 'Payout',
  list: (page, signal) => api.call(payoutRoutes.list, { query: { ...PENDING, ...page }, signal }),
  link: (id) => (
    <RouterAnchor to="/payouts/$payoutId" params={{ payoutId: id }} ff="monospace" size="sm">
      {id}
    </RouterAnchor>
  ),
  fee: (payout) => <Money amount={payout.fee} currencyCode={payout.currencyCode} />,
  destination: (payout) => describeDestination(payout.destination),
  summary: (payout) => (
    <>
      Pays <Money amount={payout.amount} currencyCode={payout.currencyCode} /> (fee{' '}
      <Money amount={payout.fee} currencyCode={payout.currencyCode} />) from wallet {payout.walletId} to{' '}
      {describeDestination(payout.destination)}.
    </>
  ),
  routes: payoutRoutes,
};

const SOURCES = { tenant_fees: 'fee revenue', operating_float: 'operating float' } as const;

const WITHDRAWALS: CaseKind<Withdrawal> = {
  noun: 'withdrawal',
  plural: 'withdrawals',
  title: 'Withdrawals awaiting approval',
  header: 'Withdrawal',
  list: (page, signal) => api.call(withdrawalRoutes.list, { query: { ...PENDING, ...page }, signal }),
  link: (id) => (
    <RouterAnchor to="/treasury/withdrawals/$withdrawalId" params={{ withdrawalId: id }} ff="monospace" size="sm">
      {id}
    </RouterAnchor>
  ),
  // A withdrawal carries no fee: the tenant moves its own money.
  fee: () => 'None',
  destination: (withdrawal) => `${describeDestination(withdrawal.destination)}, from ${SOURCES[withdrawal.source]}`,
  summary: (withdrawal) => (
    <>
      Withdraws <Money amount={withdrawal.amount} currencyCode={withdrawal.currencyCode} /> of {SOURCES[withdrawal.source]} to{' '}
      {describeDestination(withdrawal.destination)}.
    </>
  ),
  routes: withdrawalRoutes,
};

/** Whether a pending case belongs in the view: awaiting this checker, awaiting others, or either. */
function inView(awaiting: Awaiting, checker: Checker): (decided: InboxCase) => boolean {
  if (awaiting === 'all') return () => true;
  return (decided) => (notAwaitingReason(decided, checker) === null) === (awaiting === 'me');
}

/** The cases ticked for a bulk decision, forgotten once it is done. */
function useSelection(selectable: (decided: InboxCase) => boolean): Selection & { clear: () => void } {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (!next.delete(id)) next.add(id);
    setSelected(next);
  };
  return { selected, toggle, selectable, clear: () => setSelected(new Set()) };
}

/** One kind's pending cases, when the member's role may read them; decisions, one or many, when it may decide them. */
function PendingCases<Case extends InboxCase>({ kind, now, awaiting }: { kind: CaseKind<Case>; now: number; awaiting: Awaiting }) {
  const principal = usePrincipal();
  const mayDecide = canCall(principal.scopes, kind.routes.approve);
  const { memberId, orgRole } = principal;
  const checker: Checker = useMemo(() => ({ memberId, orgRole, mayApprove: mayDecide }), [memberId, orgRole, mayDecide]);
  const selection = useSelection((decided) => notAwaitingReason(decided, checker) === null);
  const columns = useMemo(() => caseColumns(kind, mayDecide, now, selection), [kind, mayDecide, now, selection]);
  const fetchPage = useMemo(() => {
    const shown = inView(awaiting, checker);
    return fillingPages<Case>(async (page, signal) => {
      const answer = await kind.list(page, signal);
      return { ...answer, data: answer.data.filter(shown) };
    });
  }, [kind, awaiting, checker]);
  if (!canCall(principal.scopes, kind.routes.list)) return null;
  const titleId = `pending-${kind.plural}`;
  const decider = {
    approve: (id: string, body: { actorId: string }, idempotencyKey: string) =>
      api.call(kind.routes.approve, { params: { id }, body, idempotencyKey }),
    reject: (id: string, body: { actorId: string; reason: string }, idempotencyKey: string) =>
      api.call(kind.routes.reject, { params: { id }, body, idempotencyKey }),
  };
  return (
    <Stack gap="xs" component="section" aria-labelledby={titleId}>
      <Title order={2} size="h3" id={titleId}>
        {kind.title}
      </Title>
      {selection.selected.size > 0 && (
        <BulkDecision ids={[...selection.selected]} noun={kind.noun} decider={decider} onDone={selection.clear} />
      )}
      <PagedTable
        caption={`Pending ${kind.noun} cases, newest first`}
        queryKey={[kind.plural, PENDING, awaiting, principal.memberId, principal.orgRole]}
        fetchPage={fetchPage}
        columns={columns}
        rowId={(decided) => decided.id}
        emptyTitle={`No ${kind.plural} awaiting approval`}
      />
    </Stack>
  );
}

/**
 * Every case awaiting a checker: pending payouts and withdrawals, each with how long it has
 * waited. The signed-in member decides the others' cases (when their role may); their own wait for
 * another approver.
 */
export function ApprovalsPage() {
  const now = useMinuteClock();
  const { awaiting = 'all' } = routeApi.useSearch();
  const navigate = useNavigate({ from: '/approvals' });
  return (
    <Stack>
      <PageTitle>Approvals</PageTitle>
      <SegmentedControl
        aria-label="Which pending cases"
        data={AWAITING_VIEWS.map((view) => ({ ...view }))}
        value={awaiting}
        onChange={(value) => void navigate({ search: { awaiting: AWAITING_VIEWS.find((view) => view.value === value)?.value } })}
        w="fit-content"
      />
      <PendingCases kind={PAYOUTS} now={now} awaiting={awaiting} />
      <PendingCases kind={WITHDRAWALS} now={now} awaiting={awaiting} />
      <ApprovalPoliciesSection />
    </Stack>
  );
}

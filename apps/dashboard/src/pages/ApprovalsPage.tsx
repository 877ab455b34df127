import { Stack, Title } from '@mantine/core';
import { type PayoutCase, payoutRoutes, type Withdrawal, withdrawalRoutes } from '@wallet/contracts';
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
import { describeDestination, formatAge } from '../format/cases';
import { MemberName } from '../components/MemberName';

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

function caseColumns<Case extends InboxCase>(kind: CaseKind<Case>, mayDecide: boolean, now: number) {
  const helper = columnsOf<Case>();
  return helper.columns([
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
  list: fillingPages((page, signal) => api.call(payoutRoutes.list, { query: { ...PENDING, ...page }, signal })),
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
  list: fillingPages((page, signal) => api.call(withdrawalRoutes.list, { query: { ...PENDING, ...page }, signal })),
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

/** One kind's pending cases, when the member's role may read them; decisions when it may decide them. */
function PendingCases<Case extends InboxCase>({ kind, now }: { kind: CaseKind<Case>; now: number }) {
  const principal = usePrincipal();
  const mayDecide = canCall(principal.scopes, kind.routes.approve);
  const columns = useMemo(() => caseColumns(kind, mayDecide, now), [kind, mayDecide, now]);
  if (!canCall(principal.scopes, kind.routes.list)) return null;
  const titleId = `pending-${kind.plural}`;
  return (
    <Stack gap="xs" component="section" aria-labelledby={titleId}>
      <Title order={2} size="h3" id={titleId}>
        {kind.title}
      </Title>
      <PagedTable
        caption={`Pending ${kind.noun} cases, newest first`}
        queryKey={[kind.plural, PENDING]}
        fetchPage={kind.list}
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
  return (
    <Stack>
      <PageTitle>Approvals</PageTitle>
      <PendingCases kind={PAYOUTS} now={now} />
      <PendingCases kind={WITHDRAWALS} now={now} />
    </Stack>
  );
}

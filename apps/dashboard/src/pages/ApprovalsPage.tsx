import { Stack, Text, Title } from '@mantine/core';
import { type PayoutCase, payoutRoutes, type Withdrawal, withdrawalRoutes } from '@wallet/contracts';
import { useEffect, useMemo, useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { CaseDecision } from '../components/CaseDecision';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { describeDestination, formatAge } from '../format/cases';

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

function Requester({ memberId, self }: { memberId: string; self: string }) {
  return memberId === self ? <Text size="sm">You</Text> : <Text ff="monospace" size="sm">{memberId}</Text>;
}

function Age({ since, now }: { since: string; now: number }) {
  return <time dateTime={since}>{formatAge(since, now)}</time>;
}

function payoutColumns(self: string, mayDecide: boolean, now: number) {
  const helper = columnsOf<PayoutCase>();
  return helper.columns([
    helper.accessor('id', {
      header: 'Payout',
      cell: (info) => (
        <RouterAnchor to="/payouts/$payoutId" params={{ payoutId: info.getValue() }} ff="monospace" size="sm">
          {info.getValue()}
        </RouterAnchor>
      ),
    }),
    helper.display({
      id: 'decision',
      header: 'Decision',
      cell: ({ row }) => {
        const payout = row.original;
        return (
          <CaseDecision
            decidable={payout}
            noun="payout"
            size="xs"
            summary={
              <>
                Pays <Money amount={payout.amount} currencyCode={payout.currencyCode} /> (fee <Money amount={payout.fee} currencyCode={payout.currencyCode} />) from wallet {payout.walletId} to {describeDestination(payout.destination)}.
              </>
            }
            mayDecide={mayDecide}
            approve={(body, idempotencyKey) => api.call(payoutRoutes.approve, { params: { id: payout.id }, body, idempotencyKey })}
            reject={(body, idempotencyKey) => api.call(payoutRoutes.reject, { params: { id: payout.id }, body, idempotencyKey })}
          />
        );
      },
    }),
    helper.accessor('requestedBy', { header: 'Requester', cell: (info) => <Requester memberId={info.getValue()} self={self} /> }),
    helper.accessor('amount', { header: 'Amount', cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} /> }),
    helper.accessor('fee', { header: 'Fee', cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} /> }),
    helper.accessor('destination', { header: 'Destination', cell: (info) => describeDestination(info.getValue()) }),
    helper.accessor('createdAt', { header: 'Waiting', cell: (info) => <Age since={info.getValue()} now={now} /> }),
  ]);
}

const SOURCES = { tenant_fees: 'fee revenue', operating_float: 'operating float' } as const;

function withdrawalColumns(self: string, mayDecide: boolean, now: number) {
  const helper = columnsOf<Withdrawal>();
  return helper.columns([
    helper.accessor('id', {
      header: 'Withdrawal',
      cell: (info) => (
        <RouterAnchor to="/treasury/withdrawals/$withdrawalId" params={{ withdrawalId: info.getValue() }} ff="monospace" size="sm">
          {info.getValue()}
        </RouterAnchor>
      ),
    }),
    helper.display({
      id: 'decision',
      header: 'Decision',
      cell: ({ row }) => {
        const withdrawal = row.original;
        return (
          <CaseDecision
            decidable={withdrawal}
            noun="withdrawal"
            size="xs"
            summary={
              <>
                Withdraws <Money amount={withdrawal.amount} currencyCode={withdrawal.currencyCode} /> of {SOURCES[withdrawal.source]} to {describeDestination(withdrawal.destination)}.
              </>
            }
            mayDecide={mayDecide}
            approve={(body, idempotencyKey) => api.call(withdrawalRoutes.approve, { params: { id: withdrawal.id }, body, idempotencyKey })}
            reject={(body, idempotencyKey) => api.call(withdrawalRoutes.reject, { params: { id: withdrawal.id }, body, idempotencyKey })}
          />
        );
      },
    }),
    helper.accessor('requestedBy', { header: 'Requester', cell: (info) => <Requester memberId={info.getValue()} self={self} /> }),
    helper.accessor('amount', { header: 'Amount', cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} /> }),
    // A withdrawal carries no fee: the tenant moves its own money.
    helper.display({ id: 'fee', header: 'Fee', cell: () => 'None' }),
    helper.accessor('destination', { header: 'Destination', cell: (info) => `${describeDestination(info.getValue())}, from ${SOURCES[info.row.original.source]}` }),
    helper.accessor('createdAt', { header: 'Waiting', cell: (info) => <Age since={info.getValue()} now={now} /> }),
  ]);
}

/**
 * Every case awaiting a checker: pending payouts and withdrawals, each with how long it has
 * waited. The signed-in member decides the others' cases (when their role may); their own wait for
 * another approver.
 */
export function ApprovalsPage() {
  const principal = usePrincipal();
  const now = useMinuteClock();
  const self = principal.memberId;
  const mayApprovePayouts = canCall(principal.scopes, payoutRoutes.approve);
  const mayApproveWithdrawals = canCall(principal.scopes, withdrawalRoutes.approve);
  const payouts = useMemo(() => payoutColumns(self, mayApprovePayouts, now), [self, mayApprovePayouts, now]);
  const withdrawals = useMemo(() => withdrawalColumns(self, mayApproveWithdrawals, now), [self, mayApproveWithdrawals, now]);
  return (
    <Stack>
      <PageTitle>Approvals</PageTitle>
      {canCall(principal.scopes, payoutRoutes.list) && (
        <Stack gap="xs" component="section" aria-labelledby="pending-payouts">
          <Title order={2} size="h3" id="pending-payouts">
            Payouts awaiting approval
          </Title>
          <PagedTable
            caption="Pending payout cases, newest first"
            queryKey={['payouts', PENDING]}
            fetchPage={(page, signal) => api.call(payoutRoutes.list, { query: { ...PENDING, ...page }, signal })}
            columns={payouts}
            rowId={(payout) => payout.id}
            emptyTitle="No payouts awaiting approval"
          />
        </Stack>
      )}
      {canCall(principal.scopes, withdrawalRoutes.list) && (
        <Stack gap="xs" component="section" aria-labelledby="pending-withdrawals">
          <Title order={2} size="h3" id="pending-withdrawals">
            Withdrawals awaiting approval
          </Title>
          <PagedTable
            caption="Pending withdrawal cases, newest first"
            queryKey={['withdrawals', PENDING]}
            fetchPage={(page, signal) => api.call(withdrawalRoutes.list, { query: { ...PENDING, ...page }, signal })}
            columns={withdrawals}
            rowId={(withdrawal) => withdrawal.id}
            emptyTitle="No withdrawals awaiting approval"
          />
        </Stack>
      )}
    </Stack>
  );
}

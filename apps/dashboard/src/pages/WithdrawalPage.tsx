import { Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type Withdrawal, withdrawalRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { CaseDecision } from '../components/CaseDecision';
import { CaseTimeline } from '../components/ActivityTimeline';
import { DateTime } from '../components/DateTime';
import { Facts } from '../components/Facts';
import { JournalEntryLink } from '../components/JournalEntryLink';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { describeDestination } from '../format/cases';
import { MemberName } from '../components/MemberName';

const routeApi = getRouteApi('/_session/treasury/withdrawals/$withdrawalId');

const SOURCES = { tenant_fees: 'Fee revenue', operating_float: 'Operating float' } as const;

function withdrawalFacts(withdrawal: Withdrawal) {
  const decided =
    withdrawal.decidedBy === null
      ? []
      : ([
          ['Decided by', <MemberName key="decider" memberId={withdrawal.decidedBy} />],
          ['Decided', withdrawal.decidedAt === null ? '—' : <DateTime key="decided" value={withdrawal.decidedAt} />],
        ] as const);
  return [
    ['Status', <StatusBadge key="status" status={withdrawal.status} awaitingLedger={withdrawal.awaitingLedger} />],
    ['From', SOURCES[withdrawal.source]],
    ['Amount', <Money key="amount" amount={withdrawal.amount} currencyCode={withdrawal.currencyCode} />],
    ['Destination', describeDestination(withdrawal.destination)],
    ['Narration', withdrawal.narration ?? '—'],
    ['Requested by', <MemberName key="requester" memberId={withdrawal.requestedBy} />],
    ['Requested', <DateTime key="created" value={withdrawal.createdAt} />],
    ...decided,
    ...(withdrawal.rejectionReason === null ? [] : ([['Rejected because', withdrawal.rejectionReason]] as const)),
    ...(withdrawal.failureCode === null ? [] : ([['Hold refused with', withdrawal.failureCode]] as const)),
    [
      'Hold entry',
      <JournalEntryLink
        key="hold"
        entryId={withdrawal.holdJournalEntryId}
        missing={withdrawal.failureCode === null ? 'Awaiting the ledger' : 'None: refused'}
      />,
    ],
    [
      'Decision entry',
      <JournalEntryLink
        key="decision"
        entryId={withdrawal.decisionJournalEntryId}
        missing={withdrawal.status === 'pending' ? 'Not decided yet' : 'Awaiting the ledger'}
      />,
    ],
  ] as const;
}

export function WithdrawalPage() {
  const { withdrawalId } = routeApi.useParams();
  const principal = usePrincipal();
  const withdrawal = useQuery({
    queryKey: ['withdrawal', withdrawalId],
    queryFn: ({ signal }) => api.call(withdrawalRoutes.get, { params: { id: withdrawalId }, signal }),
  });
  if (withdrawal.isPending) return <LoadingState label="Loading the withdrawal" />;
  if (withdrawal.isError)
    return <ErrorState error={withdrawal.error} title="Could not load the withdrawal" onRetry={() => void withdrawal.refetch()} />;
  const shown = withdrawal.data;
  return (
    <Stack>
      <PageTitle>{`Withdrawal ${shown.id}`}</PageTitle>
      <CaseDecision
        decidable={shown}
        noun="withdrawal"
        summary={
          <>
            Withdraws <Money amount={shown.amount} currencyCode={shown.currencyCode} /> of {SOURCES[shown.source].toLowerCase()} to{' '}
            {describeDestination(shown.destination)}.
          </>
        }
        mayDecide={canCall(principal.scopes, withdrawalRoutes.approve)}
        approve={(body, idempotencyKey) => api.call(withdrawalRoutes.approve, { params: { id: shown.id }, body, idempotencyKey })}
        reject={(body, idempotencyKey) => api.call(withdrawalRoutes.reject, { params: { id: shown.id }, body, idempotencyKey })}
      />
      <Facts caption="The withdrawal case" facts={withdrawalFacts(shown)} />
      <CaseTimeline history={shown} noun="withdrawal" />
    </Stack>
  );
}

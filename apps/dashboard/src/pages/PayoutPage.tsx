import { Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type PayoutCase, payoutRoutes } from '@wallet/contracts';
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
import { WalletLink } from '../components/WalletLink';
import { describeDestination } from '../format/cases';
import { MemberName } from '../components/MemberName';

const routeApi = getRouteApi('/_session/payouts/$payoutId');

function payoutFacts(payout: PayoutCase) {
  const money = (amount: string) => <Money amount={amount} currencyCode={payout.currencyCode} />;
  const decided =
    payout.decidedBy === null
      ? []
      : ([
          ['Decided by', <MemberName key="decider" memberId={payout.decidedBy} />],
          ['Decided', payout.decidedAt === null ? '—' : <DateTime key="decided" value={payout.decidedAt} />],
        ] as const);
  return [
    ['Status', <StatusBadge key="status" status={payout.status} awaitingLedger={payout.awaitingLedger} />],
    ['Wallet', <WalletLink key="wallet" walletId={payout.walletId} />],
    ['Amount', money(payout.amount)],
    ['Fee', money(payout.fee)],
    ['Destination', describeDestination(payout.destination)],
    ['Narration', payout.narration ?? '—'],
    ['Requested by', <MemberName key="requester" memberId={payout.requestedBy} />],
    ['Requested', <DateTime key="created" value={payout.createdAt} />],
    ...decided,
    ...(payout.rejectionReason === null ? [] : ([['Rejected because', payout.rejectionReason]] as const)),
    ...(payout.failureCode === null ? [] : ([['Hold refused with', payout.failureCode]] as const)),
    [
      'Hold entry',
      <JournalEntryLink
        key="hold"
        entryId={payout.holdJournalEntryId}
        missing={payout.failureCode === null ? 'Awaiting the ledger' : 'None: refused'}
      />,
    ],
    [
      'Decision entry',
      <JournalEntryLink
        key="decision"
        entryId={payout.decisionJournalEntryId}
        missing={payout.status === 'pending' ? 'Not decided yet' : 'Awaiting the ledger'}
      />,
    ],
    ['Rail reference', payout.railReference ?? '—'],
    ...(payout.railFailureReason === null ? [] : ([['Delivery failed because', payout.railFailureReason]] as const)),
    ['Outcome entry', <JournalEntryLink key="outcome" entryId={payout.outcomeJournalEntryId} missing="Not delivered yet" />],
  ] as const;
}

export function PayoutPage() {
  const { payoutId } = routeApi.useParams();
  const principal = usePrincipal();
  const payout = useQuery({
    queryKey: ['payout', payoutId],
    queryFn: ({ signal }) => api.call(payoutRoutes.get, { params: { id: payoutId }, signal }),
  });
  if (payout.isPending) return <LoadingState label="Loading the payout" />;
  if (payout.isError) return <ErrorState error={payout.error} title="Could not load the payout" onRetry={() => void payout.refetch()} />;
  const shown = payout.data;
  return (
    <Stack>
      <PageTitle>{`Payout ${shown.id}`}</PageTitle>
      <CaseDecision
        decidable={shown}
        noun="payout"
        summary={
          <>
            Pays <Money amount={shown.amount} currencyCode={shown.currencyCode} /> (fee{' '}
            <Money amount={shown.fee} currencyCode={shown.currencyCode} />) from wallet {shown.walletId} to{' '}
            {describeDestination(shown.destination)}.
          </>
        }
        mayDecide={canCall(principal.scopes, payoutRoutes.approve)}
        approve={(body, idempotencyKey) => api.call(payoutRoutes.approve, { params: { id: shown.id }, body, idempotencyKey })}
        reject={(body, idempotencyKey) => api.call(payoutRoutes.reject, { params: { id: shown.id }, body, idempotencyKey })}
      />
      {shown.awaitingLedger && (
        <Text size="sm" c="dimmed">
          The ledger has not posted this case&apos;s latest step yet; its status is final once it has.
        </Text>
      )}
      <Facts caption="The payout case" facts={payoutFacts(shown)} />
      <CaseTimeline history={shown} noun="payout" />
    </Stack>
  );
}

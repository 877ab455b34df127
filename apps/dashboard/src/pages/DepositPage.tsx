import { Button, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type Deposit, depositRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { Facts } from '../components/Facts';
import { JournalEntryLink } from '../components/JournalEntryLink';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';

const routeApi = getRouteApi('/_session/deposits/$depositId');

const orDash = (value: string | null) => value ?? '—';

function depositFacts(deposit: Deposit) {
  const money = (amount: string) => <Money amount={amount} currencyCode={deposit.currencyCode} />;
  const common = [
    ['Status', <StatusBadge key="status" status={deposit.status} awaitingLedger={deposit.awaitingLedger} />],
    ['Wallet', <WalletLink key="wallet" walletId={deposit.walletId} />],
    ['Amount', money(deposit.amount)],
    ['Fee', money(deposit.fee)],
    ['Source', deposit.source === 'momo' ? 'Mobile money' : 'Bank slip'],
    ['Reference', deposit.externalRef],
    [
      'Journal entry',
      <JournalEntryLink
        key="entry"
        entryId={deposit.journalEntryId}
        missing={deposit.status === 'completed' ? 'Awaiting the ledger' : 'None: not credited'}
      />,
    ],
    ['Received', <DateTime key="created" value={deposit.createdAt} />],
  ] as const;
  const rejection = deposit.rejectionReason === null ? [] : ([['Rejected because', deposit.rejectionReason]] as const);
  const origin =
    deposit.source === 'momo'
      ? ([
          ['Provider', orDash(deposit.providerCode)],
          ['Phone number', orDash(deposit.phoneNumber)],
        ] as const)
      : ([
          ['Bank', orDash(deposit.bankCode)],
          ['Slip reference', orDash(deposit.slipReference)],
          ['Depositor', orDash(deposit.depositorName)],
          ['Deposited', deposit.depositedAt === null ? '—' : <DateTime key="deposited" value={deposit.depositedAt} />],
          ['Verified by', orDash(deposit.verifiedBy)],
          ['Verified', deposit.verifiedAt === null ? '—' : <DateTime key="verified" value={deposit.verifiedAt} />],
        ] as const);
  return [...common, ...rejection, ...origin];
}

/**
 * A pending bank slip checked against the imported statements by the signed-in member: it is
 * credited when a statement line matches it, else rejected (NO_MATCHING_STATEMENT_ENTRY).
 */
function VerifySlip({ deposit }: { deposit: Deposit }) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => api.call(depositRoutes.verify, { params: { id: deposit.id }, body: { actorId: principal.memberId } }),
    onSuccess: (verified) => {
      queryClient.setQueryData(['deposit', deposit.id], verified);
      void queryClient.invalidateQueries({ queryKey: ['deposits'] });
      void queryClient.invalidateQueries({ queryKey: ['wallet', deposit.walletId] });
    },
  });
  return (
    <Stack gap="xs">
      <Group>
        <Button onClick={() => verify.mutate()} loading={verify.isPending}>
          Verify against the statements
        </Button>
        <Text size="sm" c="dimmed">
          Credits the wallet if an imported statement line matches this slip; rejects it otherwise.
        </Text>
      </Group>
      {verify.isError && <ErrorState error={verify.error} title="The slip was not verified" />}
    </Stack>
  );
}

export function DepositPage() {
  const { depositId } = routeApi.useParams();
  const principal = usePrincipal();
  const deposit = useQuery({
    queryKey: ['deposit', depositId],
    queryFn: ({ signal }) => api.call(depositRoutes.get, { params: { id: depositId }, signal }),
  });
  if (deposit.isPending) return <LoadingState label="Loading the deposit" />;
  if (deposit.isError)
    return <ErrorState error={deposit.error} title="Could not load the deposit" onRetry={() => void deposit.refetch()} />;
  const shown = deposit.data;
  const verifiable = shown.source === 'bank_slip' && shown.status === 'pending' && canCall(principal.scopes, depositRoutes.verify);
  return (
    <Stack>
      <PageTitle>{`Deposit ${shown.id}`}</PageTitle>
      {verifiable && <VerifySlip deposit={shown} />}
      <Facts caption="The deposit" facts={depositFacts(shown)} />
    </Stack>
  );
}

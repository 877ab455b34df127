import { Button, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type Deposit, depositRoutes, reopenDepositBodySchema } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { ActivityTimeline, ByWhom, entry, type Step } from '../components/ActivityTimeline';
import { ConfirmWithReason } from '../components/ConfirmWithReason';
import { DateTime } from '../components/DateTime';
import { Facts } from '../components/Facts';
import { JournalEntryLink } from '../components/JournalEntryLink';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';
import { MemberName } from '../components/MemberName';

const routeApi = getRouteApi('/_session/deposits/$depositId');

const orDash = (value: string | null) => value ?? '—';

/** Why a deposit was refused, in words: the codes are the API's. */
const REJECTION_REASONS: Record<string, string> = {
  NO_MATCHING_STATEMENT_ENTRY: 'No imported statement line matched the slip when it was verified',
  INVALID_WEBHOOK_SIGNATURE: "The provider's signature did not verify",
  AMOUNT_EXCEEDS_LIMIT: "The amount is above the tenant's limit",
  CURRENCY_NOT_ALLOWED: 'The tenant does not allow the currency',
  CURRENCY_MISMATCH: "The currency is not the wallet's",
};

/** A slip rejected only because its statement line was not imported yet: the one rejection the evidence can undo. */
const reopenable = (deposit: Deposit) =>
  deposit.source === 'bank_slip' && deposit.status === 'rejected' && deposit.rejectionReason === 'NO_MATCHING_STATEMENT_ENTRY';

function receivedStep(deposit: Deposit): Step {
  const body =
    deposit.source === 'momo' ? (
      <Text size="sm">
        Mobile money from {orDash(deposit.phoneNumber)} via {orDash(deposit.providerCode)}, transaction {deposit.externalRef},{' '}
        <DateTime value={deposit.createdAt} />
      </Text>
    ) : (
      <Text size="sm">
        Slip {deposit.slipReference} of bank {deposit.bankCode}
        {deposit.depositorName ? `, paid in by ${deposit.depositorName}` : ''}, submitted <DateTime value={deposit.createdAt} />
      </Text>
    );
  return { title: deposit.source === 'momo' ? 'Received' : 'Slip submitted', done: true, body };
}

function checkedStep(deposit: Deposit): Step | null {
  if (deposit.status === 'rejected')
    return {
      title: 'Rejected',
      done: true,
      body: <Text size="sm">Because: {REJECTION_REASONS[deposit.rejectionReason ?? ''] ?? deposit.rejectionReason}</Text>,
    };
  if (deposit.source !== 'bank_slip') return null;
  if (deposit.verifiedBy === null) return { title: 'Awaiting verification', done: false, body: null };
  return {
    title: 'Verified against the bank statement',
    done: true,
    body: <ByWhom memberId={deposit.verifiedBy} at={deposit.verifiedAt} />,
  };
}

/** A deposit's steps: received or submitted, verified or rejected and why, credited by the ledger. */
function depositSteps(deposit: Deposit): Step[] {
  const checked = checkedStep(deposit);
  const credited: Step = {
    title: deposit.journalEntryId === null ? 'Awaiting the ledger’s credit' : 'Credited by the ledger',
    done: deposit.journalEntryId !== null,
    body: entry(deposit.journalEntryId, deposit.status === 'completed' ? 'Awaiting the ledger' : 'None yet'),
  };
  return [receivedStep(deposit), ...(checked ? [checked] : []), ...(deposit.status === 'rejected' ? [] : [credited])];
}

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
  const rejection =
    deposit.rejectionReason === null
      ? []
      : ([['Rejected because', REJECTION_REASONS[deposit.rejectionReason] ?? deposit.rejectionReason]] as const);
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
          ['Verified by', <MemberName key="verifier" memberId={deposit.verifiedBy} />],
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
          Credits the wallet if an imported statement line matches this slip; rejects it otherwise. Import the bank&apos;s statement first:
          a slip rejected for want of its line can be reopened once the line is in.
        </Text>
      </Group>
      {verify.isError && <ErrorState error={verify.error} title="The slip was not verified" />}
    </Stack>
  );
}

/** Opens a slip rejected before its statement arrived again, with the reason the audit trail keeps. */
function ReopenSlip({ deposit }: { deposit: Deposit }) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const reopen = useMutation({
    mutationFn: ({ reason }: { reason: string }) =>
      api.call(depositRoutes.reopen, { params: { id: deposit.id }, body: { actorId: principal.memberId, reason } }),
    onSuccess: (reopened) => {
      queryClient.setQueryData(['deposit', deposit.id], reopened);
      void queryClient.invalidateQueries({ queryKey: ['deposits'] });
      setOpened(false);
    },
  });
  return (
    <Group>
      <Button variant="light" onClick={() => (reopen.reset(), setOpened(true))}>
        Reopen the slip
      </Button>
      <Text size="sm" c="dimmed">
        Verified before its statement line was imported? Reopen it, then verify it again.
      </Text>
      <ConfirmWithReason
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Reopen deposit ${deposit.id}`}
        description="The slip becomes pending again, to be verified against the statements imported since."
        confirmLabel="Reopen"
        schema={reopenDepositBodySchema.pick({ reason: true })}
        onConfirm={(body) => reopen.mutate(body)}
        pending={reopen.isPending}
        error={reopen.error}
      />
    </Group>
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
      {reopenable(shown) && canCall(principal.scopes, depositRoutes.reopen) && <ReopenSlip deposit={shown} />}
      <Facts caption="The deposit" facts={depositFacts(shown)} />
      <ActivityTimeline steps={depositSteps(shown)} audited={{ recordId: shown.id, noun: 'deposit' }} />
    </Stack>
  );
}

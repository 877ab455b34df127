import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApproveCaseBody, type RejectCaseBody, rejectCaseBodySchema } from '@wallet/contracts';
import { type ReactNode, useState } from 'react';
import { useActionKeys } from '../api/idempotency';
import { usePrincipal } from '../app/principal';
import { ConfirmWithReason } from './ConfirmWithReason';
import { type ApprovableCase, approvalProgress, notAwaitingReason } from '../format/cases';
import { ErrorState } from './States';

/** What a maker-checker case shows of itself to its checker (a payout or a withdrawal). */
export interface DecidableCase extends ApprovableCase {
  id: string;
  awaitingLedger: boolean;
}

export interface CaseDecisionProps {
  decidable: DecidableCase;
  /** "payout", "withdrawal": names the case in the dialogs. */
  noun: string;
  /** What the case moves, said in the approval dialog. */
  summary: ReactNode;
  /** Whether the session's scopes reach the case type's approve and reject routes. */
  mayDecide: boolean;
  approve: (body: ApproveCaseBody, idempotencyKey: string) => Promise<unknown>;
  reject: (body: RejectCaseBody, idempotencyKey: string) => Promise<unknown>;
  size?: 'xs' | 'sm';
}

/** The reject dialog asks for the reason only: the checker is the signed-in member. */
const rejectReasonSchema = rejectCaseBodySchema.pick({ reason: true });

/**
 * The checker's approve and reject of a pending case, as the signed-in member. The requester
 * never sees them on their own case (the server refuses it anyway: SELF_APPROVAL_FORBIDDEN); it
 * waits for another member whose role may approve. Each decision is a money-moving POST under
 * its own idempotency key, kept while its outcome is unknown so a retry cannot decide twice.
 */
export function CaseDecision({ decidable, noun, summary, mayDecide, approve, reject, size = 'sm' }: CaseDecisionProps) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const keys = useActionKeys();
  const [dialog, setDialog] = useState<'approve' | 'reject' | null>(null);
  // A decision moves money between the wallet, suspense, clearing and fees: every screen's figures may change.
  const onSuccess = () => {
    setDialog(null);
    void queryClient.invalidateQueries();
  };
  const approval = useMutation({
    mutationFn: (body: ApproveCaseBody) => approve(body, keys.keyFor({ decision: 'approve', id: decidable.id, body })),
    onSettled: (_result, error) => keys.settle(error ?? undefined),
    onSuccess,
  });
  const rejection = useMutation({
    mutationFn: (body: RejectCaseBody) => reject(body, keys.keyFor({ decision: 'reject', id: decidable.id, body })),
    onSettled: (_result, error) => keys.settle(error ?? undefined),
    onSuccess,
  });

  if (decidable.status !== 'pending') return null;
  const progress = approvalProgress(decidable);
  const reason = notAwaitingReason(decidable, { ...principal, mayApprove: mayDecide });
  if (reason) {
    return (
      <Text size="sm" c="dimmed">
        {progress ? `${progress}. ${reason}` : reason}
      </Text>
    );
  }
  const open = (which: 'approve' | 'reject') => {
    approval.reset();
    rejection.reset();
    setDialog(which);
  };
  return (
    <>
      <Stack gap={2}>
        <Group gap="xs" wrap="nowrap">
          <Button size={size} onClick={() => open('approve')} aria-label={`Approve ${noun} ${decidable.id}`}>
            Approve
          </Button>
          <Button size={size} color="red" variant="light" onClick={() => open('reject')} aria-label={`Reject ${noun} ${decidable.id}`}>
            Reject
          </Button>
        </Group>
        {progress && (
          <Text size="xs" c="dimmed">
            {progress}
          </Text>
        )}
      </Stack>
      <Modal opened={dialog === 'approve'} onClose={() => setDialog(null)} title={`Approve ${noun} ${decidable.id}`} centered>
        <Stack>
          <Text size="sm">{summary}</Text>
          {progress && (
            <Text size="sm">
              {decidable.approvals.length + 1 < decidable.approvalsRequired
                ? 'Its approval policy asks for two approvers: yours is the first, and the money moves at the second.'
                : 'Yours is the last approval its policy asks for: the money moves now.'}
            </Text>
          )}
          {decidable.awaitingLedger && (
            <Text size="sm">The ledger is still posting this case&apos;s hold: the approval may be refused until it has.</Text>
          )}
          {approval.isError && <ErrorState error={approval.error} title="Approve failed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDialog(null)}>
              Cancel
            </Button>
            <Button loading={approval.isPending} onClick={() => approval.mutate({ actorId: principal.memberId })} data-autofocus>
              Approve
            </Button>
          </Group>
        </Stack>
      </Modal>
      <ConfirmWithReason
        opened={dialog === 'reject'}
        onClose={() => setDialog(null)}
        title={`Reject ${noun} ${decidable.id}`}
        description="The held money goes back where it came from."
        confirmLabel="Reject"
        schema={rejectReasonSchema}
        onConfirm={({ reason }) => rejection.mutate({ actorId: principal.memberId, reason })}
        pending={rejection.isPending}
        error={rejection.error}
      />
    </>
  );
}

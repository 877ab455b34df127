import { Button, Text, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { proposeStatementMatchBodySchema, statementMatchRoutes } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { checkForm } from '../forms/schema';
import { FormDialog } from './FormDialog';
import { RouterAnchor } from './links';

export function SlipLink({ id }: { id: string }) {
  return (
    <RouterAnchor to="/deposits/$depositId" params={{ depositId: id }} ff="monospace" size="sm">
      {id}
    </RouterAnchor>
  );
}

/** The maker's step: a reason for the match of the chosen slip and line, proposed for another member to decide. */
export function ProposeMatch({ depositId, lineId, onDone }: { depositId: string; lineId: string; onDone: () => void }) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const propose = useMutation({
    mutationFn: (body: { depositId: string; statementLineId: string; reason: string; proposedBy: string }) =>
      api.call(statementMatchRoutes.propose, { body }),
    onSuccess: () => {
      setOpened(false);
      void queryClient.invalidateQueries();
      onDone();
    },
  });
  const submit = () => {
    const checked = checkForm(proposeStatementMatchBodySchema, {
      depositId,
      statementLineId: lineId,
      reason,
      proposedBy: principal.memberId,
    });
    if (!checked.ok) return setProblem(checked.errors.reason ?? Object.values(checked.errors)[0]);
    setProblem(undefined);
    propose.mutate(checked.value);
  };
  return (
    <>
      <Button
        size="xs"
        onClick={() => (propose.reset(), setReason(''), setOpened(true))}
        aria-label={`Propose match of slip ${depositId} and line ${lineId}`}
      >
        Propose match
      </Button>
      <FormDialog
        title="Propose a match"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={propose.isPending}
        error={propose.error}
        failure="Could not propose the match"
        submitLabel="Propose"
      >
        <Text size="sm">{`Slip ${depositId} with statement line ${lineId}. Another member decides; approval credits the slip's wallet.`}</Text>
        <Textarea
          label="Reason"
          description="Why this line is this slip's money"
          required
          value={reason}
          onChange={(event) => setReason(event.currentTarget.value)}
          error={problem}
          data-autofocus
        />
      </FormDialog>
    </>
  );
}

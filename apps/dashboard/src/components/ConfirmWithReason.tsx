import { Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { z } from 'zod';
import { checkForm } from '../forms/schema';
import { FormDialog } from './FormDialog';

export interface ConfirmWithReasonProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  description: string;
  confirmLabel: string;
  color?: string;
  /** The contracts' body schema of the action: `reason` is checked by the server's own rules. */
  schema: z.ZodType<{ reason: string }, { reason: string }>;
  onConfirm: (body: { reason: string }) => void;
  pending: boolean;
  error: unknown;
}

/**
 * A state-changing action that must say why (it goes into the audit trail): a dialog with the
 * reason, checked with the action's schema, and the action's error when the server refuses.
 */
export function ConfirmWithReason(props: ConfirmWithReasonProps) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const submit = () => {
    const checked = checkForm(props.schema, { reason });
    if (!checked.ok) return setProblem(checked.errors.reason ?? checked.errors.form);
    setProblem(undefined);
    props.onConfirm(checked.value);
  };
  return (
    <FormDialog
      title={props.title}
      opened={props.opened}
      onClose={props.onClose}
      onSubmit={submit}
      pending={props.pending}
      error={props.error}
      failure={`${props.confirmLabel} failed`}
      submitLabel={props.confirmLabel}
      submitColor={props.color}
    >
      <Text size="sm">{props.description}</Text>
      <Textarea
        label="Reason"
        description="Recorded in the audit trail"
        required
        autosize
        minRows={2}
        value={reason}
        onChange={(event) => setReason(event.currentTarget.value)}
        error={problem}
        data-autofocus
      />
    </FormDialog>
  );
}

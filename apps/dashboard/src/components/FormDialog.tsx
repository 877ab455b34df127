import { Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { AppForm } from './AppForm';
import { ErrorState } from './States';

export interface FormDialogProps {
  title: string;
  opened: boolean;
  onClose: () => void;
  onSubmit: () => void;
  /** The submission is on its way: the submit button spins and cannot be pressed twice. */
  pending: boolean;
  /** The last submission's error, shown above the buttons under `failure`. */
  error: unknown;
  failure: string;
  submitLabel: string;
  submitColor?: string;
  submitDisabled?: boolean;
  size?: 'md' | 'lg';
  children: ReactNode;
}

/** A dialog holding one form: its fields, the last error with its correlation id, then Cancel and the submit button. */
export function FormDialog(props: FormDialogProps) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} size={props.size ?? 'md'} centered>
      <AppForm onSubmit={props.onSubmit}>
        <Stack>
          {props.children}
          {props.error !== null && props.error !== undefined && <ErrorState error={props.error} title={props.failure} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" color={props.submitColor} loading={props.pending} disabled={props.submitDisabled}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </AppForm>
    </Modal>
  );
}

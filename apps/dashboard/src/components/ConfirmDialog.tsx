import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorState } from './States';

export interface ConfirmDialogProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  color?: string;
  onConfirm: () => void;
  pending: boolean;
  error: unknown;
  /** The heading of the server's refusal; by default "<confirmLabel> failed". */
  errorTitle?: string;
}

/** A state-changing action without a reason to give: asked once (Cancel has the focus), the server's refusal shown in the dialog. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack>
        <Text size="sm" component="div">
          {props.description}
        </Text>
        {props.error !== null && props.error !== undefined && (
          <ErrorState error={props.error} title={props.errorTitle ?? `${props.confirmLabel} failed`} />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose} data-autofocus>
            Cancel
          </Button>
          <Button color={props.color} loading={props.pending} onClick={props.onConfirm}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

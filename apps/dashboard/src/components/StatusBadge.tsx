import { Badge, Group } from '@mantine/core';

const COLORS: Record<string, string> = {
  pending: 'yellow',
  completed: 'green',
  succeeded: 'green',
  approved: 'teal',
  rejected: 'gray',
  failed: 'red',
};

/**
 * A money movement's status; `awaitingLedger` marks one the ledger has not posted yet, whose
 * status is therefore not final (the contracts' `awaitingLedger`).
 */
export function StatusBadge({ status, awaitingLedger = false }: { status: string; awaitingLedger?: boolean }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Badge color={COLORS[status] ?? 'gray'} variant="light">
        {status}
      </Badge>
      {awaitingLedger && (
        <Badge color="orange" variant="light" title="The ledger has not posted this step yet: the status is not final">
          awaiting ledger
        </Badge>
      )}
    </Group>
  );
}

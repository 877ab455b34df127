import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** A record's fields as a two-column table: each label a row header, so a screen reader names each value. */
export function Facts({ caption, facts }: { caption: string; facts: ReadonlyArray<readonly [label: string, value: ReactNode]> }) {
  return (
    <Table variant="vertical" layout="fixed" withTableBorder>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Tbody>
        {facts.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row" w="min(200px, 40%)">
              {label}
            </Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** A record's fields as a two-column table: each field's name a row header, for assistive technology. */
export function DetailTable({ caption, rows }: { caption: string; rows: { label: string; value: ReactNode }[] }) {
  return (
    <Table withRowBorders layout="fixed">
      <Table.Caption>{caption}</Table.Caption>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.label}>
            <Table.Th scope="row" w="35%">
              {row.label}
            </Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{row.value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

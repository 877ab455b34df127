import { Stack, Table, Text } from '@mantine/core';
import type { TreasuryBalance } from '@wallet/contracts';
import { Money } from './Money';

type Column = { header: string; amount: (row: TreasuryBalance) => string };

const COLUMNS: Record<'operatingFloat' | 'fees' | 'commission' | 'suspense' | 'clearing', Column> = {
  operatingFloat: { header: 'Operating float', amount: (row) => row.operatingFloat },
  fees: { header: 'Fee revenue', amount: (row) => row.tenantFeeRevenue },
  commission: { header: 'Platform commission', amount: (row) => row.platformCommission },
  suspense: { header: 'Suspense', amount: (row) => row.suspense },
  clearing: { header: 'Payout clearing', amount: (row) => row.payoutClearing },
};

/**
 * The treasury's balances by currency (the treasury screen with the platform's commission, the
 * overview without), and what the two in-transit accounts mean: a negative figure there is a
 * withdrawal on its way, not a loss.
 */
export function TreasuryBalancesTable({ rows, withCommission }: { rows: readonly TreasuryBalance[]; withCommission: boolean }) {
  const columns = [
    COLUMNS.operatingFloat,
    COLUMNS.fees,
    ...(withCommission ? [COLUMNS.commission] : []),
    COLUMNS.suspense,
    COLUMNS.clearing,
  ];
  return (
    <Stack gap="xs">
      <Table.ScrollContainer minWidth={withCommission ? 640 : 560}>
        <Table withTableBorder>
          <Table.Caption>Treasury balances by currency</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Currency</Table.Th>
              {columns.map((column) => (
                <Table.Th key={column.header} scope="col">
                  {column.header}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.currencyCode}>
                <Table.Th scope="row">{row.currencyCode}</Table.Th>
                {columns.map((column) => (
                  <Table.Td key={column.header}>
                    <Money amount={column.amount(row)} currencyCode={row.currencyCode} display="none" />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="sm" c="dimmed">
        Suspense and payout clearing hold money in transit: a payout or withdrawal approved and not yet delivered by its rail. Both are zero
        when nothing is on its way. A withdrawal of the operating float or of fee revenue shows there as a negative amount until the rail
        delivers it, netted with payouts&apos; positive amounts.
      </Text>
    </Stack>
  );
}

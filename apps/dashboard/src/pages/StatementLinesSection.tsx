import { Badge, Button, Card, Group, SegmentedControl, Text, Title } from '@mantine/core';
import { depositRoutes, type StatementLineRecord } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { DateTime } from '../components/DateTime';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';

const helper = columnsOf<StatementLineRecord>();
const columns = helper.columns([
  helper.accessor('date', { header: 'Value date' }),
  helper.accessor('reference', {
    header: 'Reference',
    cell: (info) => (
      <Text span ff="monospace" size="sm">
        {info.getValue()}
      </Text>
    ),
  }),
  helper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('bankCode', { header: 'Bank' }),
  helper.accessor('description', { header: 'Description', cell: (info) => info.getValue() ?? '' }),
  helper.accessor('depositId', {
    header: 'Matched slip',
    cell: (info) => {
      const depositId = info.getValue();
      const matchedAt = info.row.original.matchedAt;
      if (depositId === null || matchedAt === null) {
        return (
          <Badge color="yellow" variant="light">
            unmatched
          </Badge>
        );
      }
      return (
        <Group gap={6} wrap="nowrap">
          <RouterAnchor to="/deposits/$depositId" params={{ depositId }} ff="monospace" size="sm">
            {depositId}
          </RouterAnchor>
          <Text span size="xs" c="dimmed">
            <DateTime value={matchedAt} />
          </Text>
        </Group>
      );
    },
  }),
  helper.accessor('importId', {
    header: 'Import',
    cell: (info) => (
      <Text span ff="monospace" size="sm">
        {info.getValue()}
      </Text>
    ),
  }),
]);

const MATCH_STATES = [
  { value: 'false', label: 'Unmatched' },
  { value: 'true', label: 'Matched' },
  { value: 'all', label: 'All' },
];

/**
 * The imported bank statement lines, unmatched first in view: money the bank received that no
 * verified slip accounts for yet. Narrowed to one import right after it, until widened again.
 */
export function StatementLinesSection({ importId, onShowAllImports }: { importId: string | null; onShowAllImports: () => void }) {
  const [matched, setMatched] = useState('false');
  const filters = { ...(matched === 'all' ? {} : { matched: matched as 'true' | 'false' }), ...(importId ? { importId } : {}) };
  return (
    <Card withBorder component="section" aria-labelledby="statement-lines">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4" id="statement-lines">
          Bank statement lines
        </Title>
        <SegmentedControl aria-label="Which lines" size="xs" data={MATCH_STATES} value={matched} onChange={setMatched} />
      </Group>
      {importId && (
        <Group gap="xs" mb="sm">
          <Text size="sm">
            Lines of import{' '}
            <Text span ff="monospace">
              {importId}
            </Text>
          </Text>
          <Button variant="subtle" size="compact-xs" onClick={onShowAllImports}>
            Show every import
          </Button>
        </Group>
      )}
      <PagedTable
        key={JSON.stringify(filters)}
        caption="Statement lines, newest first"
        queryKey={['statement-lines', filters]}
        fetchPage={(page, signal) => api.call(depositRoutes.statementLines, { query: { ...filters, ...page }, signal })}
        columns={columns}
        rowId={(line) => line.id}
        emptyTitle={matched === 'false' ? 'No unmatched lines' : 'No lines'}
        emptyDescription={
          matched === 'false' ? 'Every imported line is accounted for by a verified bank slip.' : 'Imported bank statement lines show here.'
        }
      />
    </Card>
  );
}

import { Badge, Button, Card, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { FEE_SCHEDULE_STATUSES, FEE_TRANSACTION_TYPES, type FeeQuoteQuery, feeRoutes, type FeeSchedule } from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { basisPointsAsPercent, feeQuoteFormSchema } from '../books/fees';
import { DateTime } from '../components/DateTime';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ErrorState, LoadingState } from '../components/States';
import { checkForm, type FieldErrors } from '../forms/schema';
import { AppForm } from '../components/AppForm';
import { NewDraftSchedule } from './FeeScheduleEditing';

const routeApi = getRouteApi('/_session/fees');

const helper = columnsOf<FeeSchedule>();
const columns = helper.columns([
  helper.accessor('name', {
    header: 'Schedule',
    cell: (info) => (
      <RouterAnchor to="/fees/$scheduleId" params={{ scheduleId: info.row.original.id }} size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => (
      <Badge color={info.getValue() === 'published' ? 'green' : 'gray'} variant="light">
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('isDefault', {
    header: 'Default',
    cell: (info) =>
      info.getValue() ? (
        <Badge color="blue">Default</Badge>
      ) : info.row.original.defaultOnPublish && info.row.original.status === 'draft' ? (
        <Text size="xs">when published</Text>
      ) : (
        <Text size="xs">—</Text>
      ),
  }),
  helper.accessor('origin', { header: 'Made by', cell: (info) => (info.getValue() === 'system' ? 'Platform' : 'Tenant') }),
  helper.accessor('platformCommissionBps', { header: 'Platform commission', cell: (info) => basisPointsAsPercent(info.getValue()) }),
  helper.accessor('publishedAt', {
    header: 'Published',
    cell: (info) => {
      const at = info.getValue();
      return at ? <DateTime value={at} /> : '—';
    },
  }),
]);

function QuoteResult({ query }: { query: FeeQuoteQuery }) {
  const quote = useQuery({ queryKey: ['fee-quote', query], queryFn: ({ signal }) => api.call(feeRoutes.quote, { query, signal }) });
  if (quote.isPending) return <LoadingState label="Asking for the quote" />;
  if (quote.isError) return <ErrorState error={quote.error} title="Could not quote the fee" />;
  const answer = quote.data;
  return (
    <Stack gap={4} aria-live="polite" data-testid="fee-quote">
      <Text>
        Fee for a {answer.transactionType} of <Money amount={answer.amount} currencyCode={answer.currencyCode} />:{' '}
        <Text component="strong" fw={700}>
          <Money amount={answer.fee} currencyCode={answer.currencyCode} />
        </Text>
      </Text>
      {answer.scheduleId ? (
        <Text size="sm" c="dimmed">
          By rule{' '}
          <Text span ff="monospace">
            {answer.ruleId}
          </Text>{' '}
          of the default schedule{' '}
          <RouterAnchor to="/fees/$scheduleId" params={{ scheduleId: answer.scheduleId }} size="sm" underline="always">
            {answer.scheduleId}
          </RouterAnchor>
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          No rule of a default published schedule covers it: no fee.
        </Text>
      )}
    </Stack>
  );
}

/** What the tenant's default schedule charges: the form is checked by the route's schema and the amount rule, the answer is the API's. */
function QuoteCalculator() {
  const [transactionType, setTransactionType] = useState<string>('transfer');
  const [currencyCode, setCurrencyCode] = useState('');
  const [amount, setAmount] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [query, setQuery] = useState<FeeQuoteQuery | null>(null);
  const submit = () => {
    const checked = checkForm(feeQuoteFormSchema, {
      transactionType: transactionType as FeeQuoteQuery['transactionType'],
      currencyCode: currencyCode.trim().toUpperCase(),
      amount: amount.trim(),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    setQuery(checked.value);
  };
  return (
    <Card withBorder component="section" aria-labelledby="quote-heading">
      <Title order={2} size="h3" id="quote-heading" mb="sm">
        Quote calculator
      </Title>
      <AppForm onSubmit={submit}>
        <Group align="flex-start" wrap="wrap" mb="sm">
          <Select
            label="Transaction"
            data={FEE_TRANSACTION_TYPES.map((type) => ({ value: type, label: type }))}
            value={transactionType}
            onChange={(value) => setTransactionType(value ?? 'transfer')}
            allowDeselect={false}
            w={150}
            error={errors.transactionType}
          />
          <TextInput
            label="Currency"
            placeholder="USD"
            required
            value={currencyCode}
            onChange={(event) => setCurrencyCode(event.currentTarget.value)}
            error={errors.currencyCode}
            w={110}
          />
          <TextInput
            label="Amount"
            placeholder="1250.00"
            required
            inputMode="decimal"
            value={amount}
            onChange={(event) => setAmount(event.currentTarget.value)}
            error={errors.amount}
            w={200}
          />
          <Button type="submit" mt={25}>
            Quote
          </Button>
        </Group>
      </AppForm>
      {query && <QuoteResult query={query} />}
    </Card>
  );
}

const STATUSES = [{ value: '', label: 'Any' }, ...FEE_SCHEDULE_STATUSES.map((status) => ({ value: status, label: status }))];

export function FeesPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const principal = usePrincipal();
  const filterKey = JSON.stringify(filters);
  return (
    <Stack>
      <PageTitle>Fees</PageTitle>
      {canCall(principal.scopes, feeRoutes.quote) && <QuoteCalculator />}
      {canCall(principal.scopes, feeRoutes.list) && (
        <Stack component="section" aria-labelledby="schedules-heading" gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h3" id="schedules-heading">
              Fee schedules
            </Title>
            {canCall(principal.scopes, feeRoutes.create) && <NewDraftSchedule />}
          </Group>
          <Paper withBorder p="sm" component="search" aria-label="Filter fee schedules">
            <Select
              label="Status"
              data={STATUSES}
              value={filters.status ?? ''}
              onChange={(value) => void navigate({ search: value ? { status: value as (typeof FEE_SCHEDULE_STATUSES)[number] } : {} })}
              allowDeselect={false}
              w={160}
            />
          </Paper>
          <PagedTable
            key={filterKey}
            caption="Fee schedules, newest first"
            queryKey={['fee-schedules', filters]}
            fetchPage={(page, signal) => api.call(feeRoutes.list, { query: { ...filters, ...page }, signal })}
            columns={columns}
            rowId={(schedule) => schedule.id}
            emptyTitle="No fee schedules"
            emptyDescription={
              filterKey === '{}' ? 'Without a published default schedule, no fee is charged.' : 'No schedule has this status.'
            }
          />
        </Stack>
      )}
    </Stack>
  );
}

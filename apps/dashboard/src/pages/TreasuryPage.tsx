import { Button, Group, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import {
  type CreateFloatDepositBody,
  createFloatDepositBodySchema,
  type CreateWithdrawalBody,
  createWithdrawalBodySchema,
  FLOAT_DEPOSIT_STATUSES,
  FLOAT_RAILS,
  type FloatDeposit,
  type FloatRail,
  treasuryRoutes,
  type Withdrawal,
  WITHDRAWAL_METHODS,
  WITHDRAWAL_SOURCES,
  WITHDRAWAL_STATUSES,
  type WithdrawalMethod,
  withdrawalRoutes,
  type WithdrawalSource,
  exportRoutes,
} from '@wallet/contracts';
import { type ReactNode, useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { useActionKeys } from '../api/idempotency';
import { floatDepositFiltersSchema, withdrawalFiltersSchema } from '../app/money-filters';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { DestinationFields } from '../components/DestinationFields';
import { ExportLink } from '../components/ExportLink';
import { CREATED_RANGE_FIELDS, FilterForm } from '../components/FilterForm';
import { JournalEntryLink } from '../components/JournalEntryLink';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, MONEY_SORT_KEYS, orderedCaption, PagedTable, searchOrdering } from '../components/PagedTable';
import { Empty, ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { describeDestination } from '../format/cases';
import { checkDestination } from '../forms/destination';
import { amountProblem } from '../forms/money';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { FormDialog } from '../components/FormDialog';
import { listKeys } from '../app/filters';
import { MemberName } from '../components/MemberName';
import { TreasuryBalancesTable } from '../components/TreasuryBalancesTable';

const routeApi = getRouteApi('/_session/treasury');

const RAILS: Record<FloatRail, string> = { momo: 'Mobile money', bank: 'Bank', cash: 'Cash' };
const SOURCES: Record<WithdrawalSource, string> = { tenant_fees: 'Fee revenue', operating_float: 'Operating float' };
const METHODS: Record<WithdrawalMethod, string> = { momo: 'Mobile money', bank: 'Bank', cash: 'Cash' };

function Section({ id, title, action, children }: { id: string; title: string; action?: ReactNode; children: ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-labelledby={id}>
      <Group justify="space-between">
        <Title order={2} size="h3" id={id}>
          {title}
        </Title>
        {action}
      </Group>
      {children}
    </Stack>
  );
}

/** Every treasury balance by currency, each in its account's normal direction (signed). */
function Balances() {
  const balances = useQuery({ queryKey: ['treasury', 'balances'], queryFn: ({ signal }) => api.call(treasuryRoutes.balances, { signal }) });
  if (balances.isPending) return <LoadingState label="Loading balances" />;
  if (balances.isError)
    return <ErrorState error={balances.error} title="Could not load the treasury balances" onRetry={() => void balances.refetch()} />;
  if (balances.data.data.length === 0)
    return <Empty title="No balances yet" description="Balances appear once money moves in a currency." />;
  return <TreasuryBalancesTable rows={balances.data.data} withCommission />;
}

const floatHelper = columnsOf<FloatDeposit>();
const floatColumns = floatHelper.columns([
  floatHelper.accessor('id', {
    header: 'Float deposit',
    cell: (info) => (
      <Text ff="monospace" size="sm">
        {info.getValue()}
      </Text>
    ),
  }),
  floatHelper.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
  floatHelper.accessor('createdAt', { header: 'Recorded', cell: (info) => <DateTime value={info.getValue()} /> }),
  floatHelper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  floatHelper.accessor('rail', { header: 'Rail', cell: (info) => RAILS[info.getValue()] }),
  floatHelper.accessor('externalReference', { header: 'Reference', cell: (info) => info.getValue() ?? '—' }),
  floatHelper.accessor('depositedBy', { header: 'Deposited by', cell: (info) => <MemberName memberId={info.getValue()} /> }),
  floatHelper.accessor('journalEntryId', {
    header: 'Journal entry',
    cell: (info) => <JournalEntryLink entryId={info.getValue()} missing={info.row.original.failureCode ?? 'Not posted'} />,
  }),
]);

const withdrawalHelper = columnsOf<Withdrawal>();
const withdrawalColumns = withdrawalHelper.columns([
  withdrawalHelper.accessor('id', {
    header: 'Withdrawal',
    cell: (info) => (
      <RouterAnchor to="/treasury/withdrawals/$withdrawalId" params={{ withdrawalId: info.getValue() }} ff="monospace" size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  withdrawalHelper.accessor('status', {
    header: 'Status',
    cell: (info) => <StatusBadge status={info.getValue()} awaitingLedger={info.row.original.awaitingLedger} />,
  }),
  withdrawalHelper.accessor('createdAt', { header: 'Requested', cell: (info) => <DateTime value={info.getValue()} /> }),
  withdrawalHelper.accessor('source', { header: 'From', cell: (info) => SOURCES[info.getValue()] }),
  withdrawalHelper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  withdrawalHelper.accessor('destination', { header: 'Destination', cell: (info) => describeDestination(info.getValue()) }),
  withdrawalHelper.accessor('requestedBy', { header: 'Requested by', cell: (info) => <MemberName memberId={info.getValue()} /> }),
]);

/** Puts an amount problem of the currency's rule beside the schema's problems. */
function withAmountCheck(errors: FieldErrors, amount: string, currencyCode: string): FieldErrors {
  const problem = amountProblem(amount, currencyCode);
  return problem === null || errors.amount !== undefined ? errors : { ...errors, amount: problem };
}

/** One form in a dialog, sending one money-moving request under an idempotency key per action. */
function useMoneyForm<Body, Answer>(send: (body: Body, idempotencyKey: string) => Promise<Answer>, onDone: (answer: Answer) => void) {
  const queryClient = useQueryClient();
  const keys = useActionKeys();
  return useMutation({
    mutationFn: (body: Body) => send(body, keys.keyFor(body)),
    onSettled: (_answer, error) => keys.settle(error ?? undefined),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries();
      onDone(answer);
    },
  });
}

/** One of the contracts' values of a field, each under its label. */
function Choice<Value extends string>({
  id,
  label,
  value,
  options,
  labels,
  onChange,
}: {
  id: string;
  label: string;
  value: Value;
  options: readonly Value[];
  labels: Record<Value, string>;
  onChange: (value: Value) => void;
}) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={id}>
        {label}
      </Text>
      <SegmentedControl
        aria-labelledby={id}
        value={value}
        onChange={(next) => onChange(next as Value)}
        data={options.map((each) => ({ value: each, label: labels[each] }))}
      />
    </Stack>
  );
}

/** Money the tenant put into its operating float, recorded by the signed-in member. */
function RecordFloatDeposit({ onClose }: { onClose: () => void }) {
  const principal = usePrincipal();
  const [rail, setRail] = useState<FloatRail>('bank');
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (name: string) => (event: { currentTarget: { value: string } }) => {
    // Read now: React empties the event's currentTarget before a state updater runs.
    const value = event.currentTarget.value;
    setValues((current) => ({ ...current, [name]: value }));
  };
  const record = useMoneyForm(
    (body: CreateFloatDepositBody, idempotencyKey) => api.call(treasuryRoutes.createFloatDeposit, { body, idempotencyKey }),
    onClose,
  );
  const submit = () => {
    const currencyCode = (values.currencyCode ?? '').trim().toUpperCase();
    const amount = (values.amount ?? '').trim();
    const checked = checkForm(createFloatDepositBodySchema, {
      amount,
      currencyCode,
      rail,
      externalReference: optionalText(values.externalReference ?? ''),
      note: optionalText(values.note ?? ''),
      depositedBy: principal.memberId,
    });
    const problems = withAmountCheck(checked.ok ? {} : checked.errors, amount, currencyCode);
    setErrors(problems);
    if (checked.ok && Object.keys(problems).length === 0) record.mutate(checked.value);
  };
  return (
    <FormDialog
      title="Record a float deposit"
      opened
      onClose={onClose}
      onSubmit={submit}
      pending={record.isPending}
      error={record.error}
      failure="The float deposit was not recorded"
      submitLabel="Record deposit"
      size="lg"
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label="Amount"
          required
          inputMode="decimal"
          value={values.amount ?? ''}
          onChange={set('amount')}
          error={errors.amount}
          data-autofocus
        />
        <TextInput
          label="Currency"
          required
          placeholder="UGX"
          value={values.currencyCode ?? ''}
          onChange={set('currencyCode')}
          error={errors.currencyCode}
        />
      </SimpleGrid>
      <Choice id="float-rail" label="Rail" value={rail} options={FLOAT_RAILS} labels={RAILS} onChange={setRail} />
      <TextInput
        label="External reference"
        value={values.externalReference ?? ''}
        onChange={set('externalReference')}
        error={errors.externalReference}
      />
      <TextInput label="Note" value={values.note ?? ''} onChange={set('note')} error={errors.note} />
    </FormDialog>
  );
}

/** The maker's withdrawal of fee revenue or float, by the signed-in member: held until an approver other than them decides. */
function RequestWithdrawal({ onClose }: { onClose: () => void }) {
  const principal = usePrincipal();
  const navigate = useNavigate();
  const [source, setSource] = useState<WithdrawalSource>('tenant_fees');
  const [method, setMethod] = useState<WithdrawalMethod>('bank');
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const setValue = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));
  const request = useMoneyForm(
    (body: CreateWithdrawalBody, idempotencyKey) => api.call(withdrawalRoutes.create, { body, idempotencyKey }),
    (created) => {
      onClose();
      void navigate({ to: '/treasury/withdrawals/$withdrawalId', params: { withdrawalId: created.id } });
    },
  );
  const submit = () => {
    const destination = checkDestination(method, values);
    const currencyCode = (values.currencyCode ?? '').trim().toUpperCase();
    const amount = (values.amount ?? '').trim();
    const body = {
      source,
      amount,
      currencyCode,
      requestedBy: principal.memberId,
      narration: optionalText(values.narration ?? ''),
      payoutMethod: method,
      destination: destination.ok ? destination.value : {},
    };
    const checked = checkForm(createWithdrawalBodySchema, body as CreateWithdrawalBody);
    const { destination: _whole, ...fieldErrors } = {
      ...(checked.ok ? {} : checked.errors),
      ...(destination.ok ? {} : destination.errors),
    };
    const problems = withAmountCheck(fieldErrors, amount, currencyCode);
    setErrors(problems);
    if (checked.ok && Object.keys(problems).length === 0) request.mutate(checked.value);
  };
  return (
    <FormDialog
      title="Request a withdrawal"
      opened
      onClose={onClose}
      onSubmit={submit}
      pending={request.isPending}
      error={request.error}
      failure="The withdrawal was not requested"
      submitLabel="Request withdrawal"
      size="lg"
    >
      <Choice id="withdrawal-source" label="From" value={source} options={WITHDRAWAL_SOURCES} labels={SOURCES} onChange={setSource} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label="Amount"
          required
          inputMode="decimal"
          value={values.amount ?? ''}
          onChange={(event) => setValue('amount', event.currentTarget.value)}
          error={errors.amount}
          data-autofocus
        />
        <TextInput
          label="Currency"
          required
          placeholder="UGX"
          value={values.currencyCode ?? ''}
          onChange={(event) => setValue('currencyCode', event.currentTarget.value)}
          error={errors.currencyCode}
        />
      </SimpleGrid>
      <Choice id="withdrawal-method" label="Method" value={method} options={WITHDRAWAL_METHODS} labels={METHODS} onChange={setMethod} />
      <DestinationFields method={method} values={values} errors={errors} onChange={setValue} />
      <TextInput
        label="Narration"
        value={values.narration ?? ''}
        onChange={(event) => setValue('narration', event.currentTarget.value)}
        error={errors.narration}
      />
      <Text size="sm" c="dimmed">
        The amount is held from its source until an approver other than you decides.
      </Text>
    </FormDialog>
  );
}

const FLOAT_FILTERS = [
  { name: 'status', label: 'Status', options: FLOAT_DEPOSIT_STATUSES },
  { name: 'currencyCode', label: 'Currency', placeholder: 'UGX', upper: true, width: 110 },
  ...CREATED_RANGE_FIELDS,
] as const;
const WITHDRAWAL_FILTERS = [{ name: 'status', label: 'Status', options: WITHDRAWAL_STATUSES }, ...CREATED_RANGE_FIELDS] as const;

export function TreasuryPage() {
  const search = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const principal = usePrincipal();
  const may = (route: Parameters<typeof canCall>[1]) => canCall(principal.scopes, route);
  const [dialog, setDialog] = useState<'float' | 'withdrawal' | null>(null);
  const floatFilters = {
    status: search.floatStatus,
    currencyCode: search.floatCurrencyCode,
    createdFrom: search.floatCreatedFrom,
    createdTo: search.floatCreatedTo,
    sort: search.floatSort,
  };
  const withdrawalFilters = {
    status: search.withdrawalStatus,
    createdFrom: search.withdrawalCreatedFrom,
    createdTo: search.withdrawalCreatedTo,
    sort: search.withdrawalSort,
  };
  const floatKeys = listKeys(floatFilters);
  const withdrawalKeys = listKeys(withdrawalFilters);
  return (
    <Stack gap="xl">
      <PageTitle>Treasury</PageTitle>
      {may(treasuryRoutes.balances) && (
        <Section id="treasury-balances" title="Balances">
          <Balances />
        </Section>
      )}
      {may(treasuryRoutes.listFloatDeposits) && (
        <Section
          id="float-deposits"
          title="Float deposits"
          action={may(treasuryRoutes.createFloatDeposit) && <Button onClick={() => setDialog('float')}>Record a float deposit</Button>}
        >
          <FilterForm
            key={floatKeys.form}
            label="Filter float deposits"
            schema={floatDepositFiltersSchema}
            fields={FLOAT_FILTERS}
            filters={floatFilters}
            onApply={(next) =>
              void navigate({
                search: (current) => ({
                  ...current,
                  floatStatus: next.status,
                  floatCurrencyCode: next.currencyCode,
                  floatCreatedFrom: next.createdFrom,
                  floatCreatedTo: next.createdTo,
                }),
              })
            }
            extra={<ExportLink route={exportRoutes.floatDeposits} filters={floatFilters} />}
          />
          <PagedTable
            key={floatKeys.list}
            caption={orderedCaption('Float deposits', floatFilters.sort)}
            ordering={searchOrdering(
              floatFilters,
              MONEY_SORT_KEYS,
              (next) => void navigate({ search: (current) => ({ ...current, floatSort: next.sort }) }),
            )}
            queryKey={['treasury', 'float-deposits', floatFilters]}
            fetchPage={fillingPages((page, signal) =>
              api.call(treasuryRoutes.listFloatDeposits, { query: { ...floatFilters, ...page }, signal }),
            )}
            columns={floatColumns}
            rowId={(deposit) => deposit.id}
            emptyTitle="No float deposits"
            emptyDescription="Money the tenant puts into its operating float shows here."
          />
        </Section>
      )}
      {may(withdrawalRoutes.list) && (
        <Section
          id="withdrawals"
          title="Withdrawals"
          action={may(withdrawalRoutes.create) && <Button onClick={() => setDialog('withdrawal')}>Request a withdrawal</Button>}
        >
          <FilterForm
            key={withdrawalKeys.form}
            label="Filter withdrawals"
            schema={withdrawalFiltersSchema}
            fields={WITHDRAWAL_FILTERS}
            filters={withdrawalFilters}
            onApply={(next) =>
              void navigate({
                search: (current) => ({
                  ...current,
                  withdrawalStatus: next.status,
                  withdrawalCreatedFrom: next.createdFrom,
                  withdrawalCreatedTo: next.createdTo,
                }),
              })
            }
            extra={<ExportLink route={exportRoutes.withdrawals} filters={withdrawalFilters} />}
          />
          <PagedTable
            key={withdrawalKeys.list}
            caption={orderedCaption('Withdrawal cases', withdrawalFilters.sort)}
            ordering={searchOrdering(
              withdrawalFilters,
              MONEY_SORT_KEYS,
              (next) => void navigate({ search: (current) => ({ ...current, withdrawalSort: next.sort }) }),
            )}
            queryKey={['withdrawals', withdrawalFilters]}
            fetchPage={fillingPages((page, signal) =>
              api.call(withdrawalRoutes.list, { query: { ...withdrawalFilters, ...page }, signal }),
            )}
            columns={withdrawalColumns}
            rowId={(withdrawal) => withdrawal.id}
            emptyTitle="No withdrawals"
            emptyDescription="Withdrawals of fee revenue or float show here once requested."
          />
        </Section>
      )}
      {dialog === 'float' && <RecordFloatDeposit onClose={() => setDialog(null)} />}
      {dialog === 'withdrawal' && <RequestWithdrawal onClose={() => setDialog(null)} />}
    </Stack>
  );
}

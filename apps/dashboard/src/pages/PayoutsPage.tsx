import { Button, Group, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import {
  type CreatePayoutBody,
  createPayoutBodySchema,
  type PayoutCase,
  PAYOUT_METHODS,
  PAYOUT_STATUSES,
  type PayoutMethod,
  payoutRoutes,
  exportRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { useActionKeys } from '../api/idempotency';
import { payoutFiltersSchema } from '../app/money-filters';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { DestinationFields } from '../components/DestinationFields';
import { ExportLink } from '../components/ExportLink';
import { CREATED_RANGE_FIELDS, FilterForm } from '../components/FilterForm';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, MONEY_SORT_KEYS, orderedCaption, PagedTable, searchOrdering } from '../components/PagedTable';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';
import { describeDestination } from '../format/cases';
import { checkDestination } from '../forms/destination';
import { amountProblem } from '../forms/money';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { FormDialog } from '../components/FormDialog';
import { listKeys } from '../app/filters';
import { MemberName } from '../components/MemberName';

const routeApi = getRouteApi('/_session/payouts');

const helper = columnsOf<PayoutCase>();
const columns = helper.columns([
  helper.accessor('id', {
    header: 'Payout',
    cell: (info) => (
      <RouterAnchor to="/payouts/$payoutId" params={{ payoutId: info.getValue() }} ff="monospace" size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => <StatusBadge status={info.getValue()} awaitingLedger={info.row.original.awaitingLedger} />,
  }),
  helper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('fee', {
    header: 'Fee',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('walletId', { header: 'Wallet', cell: (info) => <WalletLink walletId={info.getValue()} /> }),
  helper.accessor('destination', { header: 'Destination', cell: (info) => describeDestination(info.getValue()) }),
  helper.accessor('requestedBy', { header: 'Requested by', cell: (info) => <MemberName memberId={info.getValue()} /> }),
  helper.accessor('createdAt', { header: 'Requested', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const FILTERS = [
  { name: 'walletId', label: 'Wallet id', placeholder: 'wl_…' },
  { name: 'status', label: 'Status', options: PAYOUT_STATUSES },
  ...CREATED_RANGE_FIELDS,
] as const;

/** The form's values as the request's body, checked by the contracts' schema; destination problems keyed by their fields. */
function checkPayout(values: Record<string, string>, method: PayoutMethod, requestedBy: string) {
  const destination = checkDestination(method, values);
  const currencyCode = values.currencyCode?.trim().toUpperCase() ?? '';
  const body = {
    walletId: values.walletId?.trim() ?? '',
    amount: values.amount?.trim() ?? '',
    currencyCode,
    requestedBy,
    narration: optionalText(values.narration ?? ''),
    payoutMethod: method,
    destination: destination.ok ? destination.value : {},
  };
  const checked = checkForm(createPayoutBodySchema, body as CreatePayoutBody);
  const errors: FieldErrors = { ...(checked.ok ? {} : checked.errors), ...(destination.ok ? {} : destination.errors) };
  delete errors.destination;
  const amount = amountProblem(body.amount, currencyCode);
  if (amount !== null) errors.amount ??= amount;
  return checked.ok && Object.keys(errors).length === 0 ? { ok: true as const, value: checked.value } : { ok: false as const, errors };
}

/**
 * The maker's request, as the signed-in member: the wallet's amount plus fee are held until an
 * approver other than the requester decides. The new case's page opens once it is recorded.
 */
function RequestPayout({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const principal = usePrincipal();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const keys = useActionKeys();
  const [method, setMethod] = useState<PayoutMethod>('momo');
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));
  const request = useMutation({
    mutationFn: (body: CreatePayoutBody) => api.call(payoutRoutes.create, { body, idempotencyKey: keys.keyFor(body) }),
    onSettled: (_result, error) => keys.settle(error ?? undefined),
    onSuccess: (created) => {
      void queryClient.invalidateQueries();
      onClose();
      void navigate({ to: '/payouts/$payoutId', params: { payoutId: created.id } });
    },
  });
  const submit = () => {
    const checked = checkPayout(values, method, principal.memberId);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    request.mutate(checked.value);
  };
  return (
    <FormDialog
      title="Request a payout"
      opened={opened}
      onClose={onClose}
      onSubmit={submit}
      pending={request.isPending}
      error={request.error}
      failure="The payout was not requested"
      submitLabel="Request payout"
      size="lg"
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput
          label="Wallet id"
          required
          placeholder="wl_…"
          value={values.walletId ?? ''}
          onChange={(event) => set('walletId', event.currentTarget.value)}
          error={errors.walletId}
          data-autofocus
        />
        <TextInput
          label="Amount"
          required
          inputMode="decimal"
          value={values.amount ?? ''}
          onChange={(event) => set('amount', event.currentTarget.value)}
          error={errors.amount}
        />
        <TextInput
          label="Currency"
          required
          placeholder="UGX"
          value={values.currencyCode ?? ''}
          onChange={(event) => set('currencyCode', event.currentTarget.value)}
          error={errors.currencyCode}
        />
      </SimpleGrid>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="payout-method">
          Method
        </Text>
        <SegmentedControl
          aria-labelledby="payout-method"
          value={method}
          onChange={(value) => setMethod(value as PayoutMethod)}
          data={PAYOUT_METHODS.map((each) => ({ value: each, label: each === 'momo' ? 'Mobile money' : 'Bank' }))}
        />
      </Stack>
      <DestinationFields method={method} values={values} errors={errors} onChange={set} />
      <TextInput
        label="Narration"
        value={values.narration ?? ''}
        onChange={(event) => set('narration', event.currentTarget.value)}
        error={errors.narration}
      />
      <Text size="sm" c="dimmed">
        The amount and its fee are held from the wallet until an approver other than you decides.
      </Text>
    </FormDialog>
  );
}

export function PayoutsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const principal = usePrincipal();
  const [requesting, setRequesting] = useState(false);
  const keys = listKeys(filters);
  return (
    <Stack gap={0}>
      <Group justify="space-between" align="flex-start">
        <PageTitle>Payouts</PageTitle>
        {canCall(principal.scopes, payoutRoutes.create) && <Button onClick={() => setRequesting(true)}>Request a payout</Button>}
      </Group>
      <FilterForm
        key={keys.form}
        label="Filter payouts"
        schema={payoutFiltersSchema}
        fields={FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
        extra={<ExportLink route={exportRoutes.payouts} filters={filters} />}
      />
      <PagedTable
        key={keys.list}
        caption={orderedCaption('Payout cases', filters.sort)}
        ordering={searchOrdering(filters, MONEY_SORT_KEYS, (search) => void navigate({ search }))}
        queryKey={['payouts', filters]}
        fetchPage={fillingPages((page, signal) => api.call(payoutRoutes.list, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(payout) => payout.id}
        emptyTitle="No payouts"
        emptyDescription={!keys.filtered ? 'Payouts from wallets appear here once requested.' : 'No payout matches these filters.'}
      />
      {requesting && <RequestPayout opened onClose={() => setRequesting(false)} />}
    </Stack>
  );
}

import { Button, Card, FileInput, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import {
  BANK_STATEMENT_BODY,
  bankStatementCsvQuerySchema,
  type Deposit,
  DEPOSIT_SOURCES,
  DEPOSIT_STATUSES,
  depositRoutes,
  exportRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { fillingPages } from '../api/pages';
import { useActionKeys } from '../api/idempotency';
import { depositFiltersSchema } from '../app/money-filters';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { ExportLink } from '../components/ExportLink';
import { CREATED_RANGE_FIELDS, FilterForm } from '../components/FilterForm';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { columnsOf, MONEY_SORT_KEYS, orderedCaption, PagedTable, searchOrdering } from '../components/PagedTable';
import { ErrorState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';
import { WalletLink } from '../components/WalletLink';
import { checkForm, type FieldErrors } from '../forms/schema';
import { StatementLinesSection } from './StatementLinesSection';
import { AppForm } from '../components/AppForm';
import { listKeys } from '../app/filters';

const routeApi = getRouteApi('/_session/deposits');

const helper = columnsOf<Deposit>();
const columns = helper.columns([
  helper.accessor('id', {
    header: 'Deposit',
    cell: (info) => (
      <RouterAnchor to="/deposits/$depositId" params={{ depositId: info.getValue() }} ff="monospace" size="sm">
        {info.getValue()}
      </RouterAnchor>
    ),
  }),
  helper.accessor('walletId', { header: 'Wallet', cell: (info) => <WalletLink walletId={info.getValue()} /> }),
  helper.accessor('source', { header: 'Source', cell: (info) => (info.getValue() === 'momo' ? 'Mobile money' : 'Bank slip') }),
  helper.accessor('externalRef', { header: 'Reference' }),
  helper.accessor('amount', {
    header: 'Amount',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('fee', {
    header: 'Fee',
    cell: (info) => <Money amount={info.getValue()} currencyCode={info.row.original.currencyCode} />,
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => <StatusBadge status={info.getValue()} awaitingLedger={info.row.original.awaitingLedger} />,
  }),
  helper.accessor('createdAt', { header: 'Received', cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const FILTERS = [
  { name: 'walletId', label: 'Wallet id', placeholder: 'wl_…' },
  { name: 'status', label: 'Status', options: DEPOSIT_STATUSES },
  { name: 'source', label: 'Source', options: DEPOSIT_SOURCES },
  ...CREATED_RANGE_FIELDS,
] as const;

/**
 * A bank's statement as CSV (header date,reference,amount,description), the lines pending bank
 * slips are verified against. The bank and currency go in the query, checked by their schema.
 */
function StatementImport({ onImported }: { onImported: (importId: string) => void }) {
  const queryClient = useQueryClient();
  const keys = useActionKeys();
  const [bankCode, setBankCode] = useState('');
  const [currencyCode, setCurrencyCode] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const upload = useMutation({
    mutationFn: async (input: { query: { bankCode: string; currencyCode: string }; file: File }) => {
      const text = await input.file.text();
      const idempotencyKey = keys.keyFor({ query: input.query, text });
      return api.send(depositRoutes.importStatement, { query: input.query, text, mediaType: 'text/csv', idempotencyKey });
    },
    onSettled: (_result, error) => keys.settle(error ?? undefined),
    onSuccess: (result) => {
      onImported(result.id);
      void queryClient.invalidateQueries({ queryKey: ['reconciliation'] });
      void queryClient.invalidateQueries({ queryKey: ['statement-lines'] });
    },
  });
  const submit = () => {
    const checked = checkForm(bankStatementCsvQuerySchema, { bankCode: bankCode.trim(), currencyCode: currencyCode.trim().toUpperCase() });
    const problems: FieldErrors = checked.ok ? {} : { ...checked.errors };
    if (file === null) problems.file = 'Choose the statement file';
    else if (file.size > BANK_STATEMENT_BODY.limitBytes)
      problems.file = `The file is larger than ${BANK_STATEMENT_BODY.limitBytes / (1024 * 1024)} MiB`;
    setErrors(problems);
    if (checked.ok && file !== null && Object.keys(problems).length === 0) upload.mutate({ query: checked.value, file });
  };
  return (
    <Card withBorder component="section" aria-labelledby="statement-import">
      <Title order={2} size="h4" mb="xs" id="statement-import">
        Import a bank statement
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        A CSV with the header date,reference,amount,description. Pending bank slips are verified against its lines; a line already imported
        is not stored twice.
      </Text>
      <AppForm onSubmit={submit}>
        <Group align="flex-start" wrap="wrap">
          <TextInput
            label="Bank code"
            required
            value={bankCode}
            onChange={(event) => setBankCode(event.currentTarget.value)}
            error={errors.bankCode}
          />
          <TextInput
            label="Currency"
            required
            placeholder="UGX"
            value={currencyCode}
            onChange={(event) => setCurrencyCode(event.currentTarget.value)}
            error={errors.currencyCode}
            w={110}
          />
          <FileInput
            label="Statement (CSV)"
            required
            accept=".csv,text/csv"
            value={file}
            onChange={setFile}
            error={errors.file}
            w={260}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the chosen file' }}
          />
          <Button type="submit" mt={25} loading={upload.isPending}>
            Import
          </Button>
        </Group>
      </AppForm>
      {upload.isError && <ErrorState error={upload.error} title="The statement was not imported" />}
      {upload.isSuccess && (
        <Text size="sm" mt="sm" role="status">
          Import{' '}
          <Text span ff="monospace">
            {upload.data.id}
          </Text>
          : {upload.data.imported} lines stored, {upload.data.duplicates} already imported before.
        </Text>
      )}
    </Card>
  );
}

export function DepositsPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const principal = usePrincipal();
  const keys = listKeys(filters);
  const [importId, setImportId] = useState<string | null>(null);
  return (
    <Stack>
      <PageTitle>Deposits</PageTitle>
      <FilterForm
        key={keys.form}
        label="Filter deposits"
        schema={depositFiltersSchema}
        fields={FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
        extra={<ExportLink route={exportRoutes.deposits} filters={filters} />}
      />
      <PagedTable
        key={keys.list}
        caption={orderedCaption('Deposits', filters.sort)}
        ordering={searchOrdering(filters, MONEY_SORT_KEYS, (search) => void navigate({ search }))}
        queryKey={['deposits', filters]}
        fetchPage={fillingPages((page, signal) => api.call(depositRoutes.list, { query: { ...filters, ...page }, signal }))}
        columns={columns}
        rowId={(deposit) => deposit.id}
        emptyTitle="No deposits"
        emptyDescription={
          !keys.filtered ? 'Mobile money deposits and bank slips appear here as they arrive.' : 'No deposit matches these filters.'
        }
      />
      {canCall(principal.scopes, depositRoutes.importStatement) && <StatementImport onImported={setImportId} />}
      {canCall(principal.scopes, depositRoutes.statementLines) && (
        <StatementLinesSection importId={importId} onShowAllImports={() => setImportId(null)} />
      )}
    </Stack>
  );
}

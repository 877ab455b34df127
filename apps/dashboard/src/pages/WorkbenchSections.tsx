import { Badge, Button, Card, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type MatchRule, matchRuleBodySchema, rejectCaseBodySchema, type StatementMatch, statementMatchRoutes } from '@wallet/contracts';
import { type ReactNode, useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';
import { ConfirmWithReason } from '../components/ConfirmWithReason';
import { FormDialog } from '../components/FormDialog';
import { MemberName } from '../components/MemberName';
import { Money } from '../components/Money';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { ErrorState, LoadingState } from '../components/States';
import { checkForm } from '../forms/schema';
import { ProposeMatch, SlipLink } from '../components/ProposeMatch';

const PENDING = { status: 'pending' } as const;

/** One of the workbench's sections: a card named by its heading, with an action beside the heading. */
export function WorkbenchCard({ id, title, action, children }: { id: string; title: string; action?: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-labelledby={id}>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id={id}>
          {title}
        </Title>
        {action}
      </Group>
      {children}
    </Card>
  );
}
const reasonSchema = rejectCaseBodySchema.pick({ reason: true });

/** A checker's approve and reject of one proposed match; its proposer sees who it waits for instead. */
function MatchDecision({ match }: { match: StatementMatch }) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const [rejecting, setRejecting] = useState(false);
  const done = () => {
    setRejecting(false);
    void queryClient.invalidateQueries();
  };
  const approve = useMutation({
    mutationFn: () => api.call(statementMatchRoutes.approve, { params: { id: match.id }, body: { actorId: principal.memberId } }),
    onSuccess: done,
  });
  const reject = useMutation({
    mutationFn: (reason: string) =>
      api.call(statementMatchRoutes.reject, { params: { id: match.id }, body: { actorId: principal.memberId, reason } }),
    onSuccess: done,
  });
  if (match.proposedBy === principal.memberId)
    return (
      <Text size="sm" c="dimmed">
        Your proposal: awaits another member.
      </Text>
    );
  if (!canCall(principal.scopes, statementMatchRoutes.approve)) return <Text size="sm">Awaits a checker.</Text>;
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="nowrap">
        <Button size="xs" loading={approve.isPending} onClick={() => approve.mutate()} aria-label={`Approve match ${match.id}`}>
          Approve
        </Button>
        <Button
          size="xs"
          color="red"
          variant="light"
          onClick={() => (reject.reset(), setRejecting(true))}
          aria-label={`Reject match ${match.id}`}
        >
          Reject
        </Button>
      </Group>
      {approve.isError && <ErrorState error={approve.error} title="Approve failed" />}
      <ConfirmWithReason
        opened={rejecting}
        onClose={() => setRejecting(false)}
        title={`Reject match ${match.id}`}
        description="Nothing moves: the slip and the line are free to be matched again."
        confirmLabel="Reject"
        schema={reasonSchema}
        onConfirm={({ reason }) => reject.mutate(reason)}
        pending={reject.isPending}
        error={reject.error}
      />
    </Stack>
  );
}

const matchHelper = columnsOf<StatementMatch>();
const matchColumns = matchHelper.columns([
  matchHelper.display({ id: 'decision', header: 'Decision', cell: ({ row }) => <MatchDecision match={row.original} /> }),
  matchHelper.display({ id: 'slip', header: 'Slip', cell: ({ row }) => <SlipLink id={row.original.depositId} /> }),
  matchHelper.display({
    id: 'amount',
    header: 'Amount',
    cell: ({ row }) => <Money amount={row.original.deposit.amount} currencyCode={row.original.deposit.currencyCode} />,
  }),
  matchHelper.display({
    id: 'references',
    header: 'Slip reference / line reference',
    cell: ({ row }) =>
      `${row.original.deposit.slipReference ?? ''} / ${row.original.statementLine.reference} (${row.original.statementLine.date})`,
  }),
  matchHelper.accessor('reason', { header: 'Reason' }),
  matchHelper.display({ id: 'proposedBy', header: 'Proposed by', cell: ({ row }) => <MemberName memberId={row.original.proposedBy} /> }),
]);

/** The matches proposed and not yet decided: the checkers' queue. */
export function PendingMatches() {
  if (!canCall(usePrincipal().scopes, statementMatchRoutes.list)) return null;
  return (
    <WorkbenchCard id="pending-matches" title="Matches awaiting a checker">
      <PagedTable
        caption="Proposed matches, newest first"
        queryKey={['statement-matches', PENDING]}
        fetchPage={(page, signal) => api.call(statementMatchRoutes.list, { query: { ...PENDING, ...page }, signal })}
        columns={matchColumns}
        rowId={(match) => match.id}
        emptyTitle="No matches awaiting a checker"
      />
    </WorkbenchCard>
  );
}

/** What the tenant's rule finds for the newest pending slips, each candidate one click from a proposal. */
export function Suggestions() {
  const suggestions = useQuery({
    queryKey: ['statement-matches', 'suggestions'],
    queryFn: ({ signal }) => api.call(statementMatchRoutes.suggestions, { query: { limit: 20 }, signal }),
  });
  const mayPropose = canCall(usePrincipal().scopes, statementMatchRoutes.propose);
  if (suggestions.isPending) return <LoadingState label="Applying the match rule" />;
  if (suggestions.isError) return <ErrorState error={suggestions.error} title="Could not apply the match rule" />;
  const found = suggestions.data.data.filter((each) => each.candidates.length > 0);
  return (
    <WorkbenchCard id="suggestions" title="Suggested by the rule">
      {found.length === 0 ? (
        <Text size="sm" c="dimmed">
          The rule finds no line for the newest pending slips.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table>
            <Table.Caption>Pending slips and the unmatched lines the rule accepts for them</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Slip</Table.Th>
                <Table.Th scope="col">Amount</Table.Th>
                <Table.Th scope="col">Slip reference</Table.Th>
                <Table.Th scope="col">Line</Table.Th>
                <Table.Th scope="col">Action</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {found.flatMap(({ deposit, candidates }) =>
                candidates.map((line) => (
                  <Table.Tr key={`${deposit.id}-${line.id}`}>
                    <Table.Td>
                      <SlipLink id={deposit.id} />
                    </Table.Td>
                    <Table.Td>
                      <Money amount={deposit.amount} currencyCode={deposit.currencyCode} />
                    </Table.Td>
                    <Table.Td>{deposit.slipReference}</Table.Td>
                    <Table.Td>{`${line.date} ${line.reference}`}</Table.Td>
                    <Table.Td>{mayPropose && <ProposeMatch depositId={deposit.id} lineId={line.id} onDone={() => undefined} />}</Table.Td>
                  </Table.Tr>
                )),
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </WorkbenchCard>
  );
}

const REFERENCE_RULES: ReadonlyArray<{ value: MatchRule['reference']; label: string }> = [
  { value: 'exact', label: 'The same reference' },
  { value: 'contains', label: 'One reference holds the other' },
  { value: 'any', label: 'Any reference' },
];

function ruleInWords(rule: MatchRule): string {
  const reference = REFERENCE_RULES.find((each) => each.value === rule.reference)?.label ?? rule.reference;
  return `${reference}; the same bank, currency and amount; dated within ${rule.dateWindowDays} days of the slip.`;
}

/** The org-admin's editor of the rule: how references compare, and how far apart the dates may be. */
function EditRule({ rule }: { rule: MatchRule }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [reference, setReference] = useState<MatchRule['reference']>(rule.reference);
  const [days, setDays] = useState(String(rule.dateWindowDays));
  const [problem, setProblem] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (body: MatchRule) => api.call(statementMatchRoutes.setRule, { body }),
    onSuccess: () => {
      setOpened(false);
      void queryClient.invalidateQueries({ queryKey: ['statement-matches'] });
    },
  });
  const submit = () => {
    const checked = checkForm(matchRuleBodySchema, { reference, dateWindowDays: Number(days) });
    if (!checked.ok) return setProblem(Object.values(checked.errors)[0]);
    setProblem(undefined);
    save.mutate(checked.value);
  };
  return (
    <>
      <Button size="xs" variant="light" onClick={() => (save.reset(), setOpened(true))}>
        Edit the rule
      </Button>
      <FormDialog
        title="Match rule"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={save.isPending}
        error={save.error}
        failure="Could not save the rule"
        submitLabel="Save rule"
      >
        <Select
          label="References"
          data={[...REFERENCE_RULES]}
          value={reference}
          onChange={(value) => setReference(REFERENCE_RULES.find((each) => each.value === value)?.value ?? 'exact')}
          allowDeselect={false}
        />
        <TextInput
          label="Date window (days)"
          inputMode="numeric"
          value={days}
          onChange={(event) => setDays(event.currentTarget.value)}
          error={problem}
        />
      </FormDialog>
    </>
  );
}

export function MatchRuleCard() {
  const { scopes } = usePrincipal();
  const rule = useQuery({
    queryKey: ['statement-matches', 'rule'],
    queryFn: ({ signal }) => api.call(statementMatchRoutes.getRule, { signal }),
    enabled: canCall(scopes, statementMatchRoutes.getRule),
  });
  if (!canCall(scopes, statementMatchRoutes.getRule) || !rule.data) return null;
  return (
    <WorkbenchCard
      id="match-rule"
      title="Match rule"
      action={canCall(scopes, statementMatchRoutes.setRule) && <EditRule rule={rule.data} />}
    >
      <Group gap="xs">
        <Badge variant="light">{rule.data.reference}</Badge>
        <Text size="sm">{ruleInWords(rule.data)}</Text>
      </Group>
    </WorkbenchCard>
  );
}

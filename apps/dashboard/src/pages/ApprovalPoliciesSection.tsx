import { ActionIcon, Button, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type ApprovalPolicy,
  type ApprovalPolicyBody,
  approvalPolicyBodySchema,
  type ApprovalRule,
  hasScope,
  ORG_ROLES,
  type OrgRole,
  payoutRoutes,
  scopesOfRole,
  withdrawalRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { FormDialog } from '../components/FormDialog';
import { MemberName } from '../components/MemberName';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';
import { checkForm } from '../forms/schema';

/** The two case types a policy governs, as the section names them, with their routes. */
const POLICY_KINDS = [
  { key: 'payouts', title: 'Payouts', routes: payoutRoutes, approveScope: payoutRoutes.approve.scope },
  { key: 'withdrawals', title: 'Withdrawals', routes: withdrawalRoutes, approveScope: withdrawalRoutes.approve.scope },
] as const;
type PolicyKind = (typeof POLICY_KINDS)[number];

/** A rule as the form holds it: every value text, as typed. */
interface RuleDraft {
  currencyCode: string;
  aboveAmount: string;
  approvalsRequired: string;
  approverRole: OrgRole | typeof ANY_ROLE;
}

const ANY_ROLE = '';
const NEW_RULE: RuleDraft = { currencyCode: '', aboveAmount: '', approvalsRequired: '2', approverRole: ANY_ROLE };

function draftOf(rule: ApprovalRule): RuleDraft {
  return { ...rule, approvalsRequired: String(rule.approvalsRequired), approverRole: rule.approverRole ?? ANY_ROLE };
}

/** What a rule asks, in words: "2 approvers", "an org-admin", "2 approvers, each an org-admin". */
function asked(rule: ApprovalRule): string {
  const count = rule.approvalsRequired > 1 ? `${rule.approvalsRequired} different approvers` : 'one approver';
  return rule.approverRole ? `${count}, each of the ${rule.approverRole} role` : count;
}

function RulesTable({ kind, policy }: { kind: PolicyKind; policy: ApprovalPolicy }) {
  if (policy.rules.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No policy: one approver whose role may approve decides any case.
      </Text>
    );
  return (
    <Table>
      <Table.Caption>{`${kind.title}: above the amount, a case needs`}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Cases above</Table.Th>
          <Table.Th scope="col">Need</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {policy.rules.map((rule) => (
          <Table.Tr key={rule.currencyCode}>
            <Table.Td>
              <Money amount={rule.aboveAmount} currencyCode={rule.currencyCode} />
            </Table.Td>
            <Table.Td>{asked(rule)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function RuleFields({ rule, index, onChange, onRemove, roles }: RuleFieldsProps) {
  const label = (what: string) => `Rule ${index + 1}: ${what}`;
  return (
    <Group align="flex-end" gap="xs" wrap="wrap">
      <TextInput
        label={label('currency')}
        w={110}
        value={rule.currencyCode}
        onChange={(event) => onChange({ ...rule, currencyCode: event.currentTarget.value.toUpperCase() })}
      />
      <TextInput
        label={label('above amount')}
        w={150}
        inputMode="decimal"
        value={rule.aboveAmount}
        onChange={(event) => onChange({ ...rule, aboveAmount: event.currentTarget.value })}
      />
      <Select
        label={label('approvers')}
        w={130}
        data={['1', '2']}
        allowDeselect={false}
        value={rule.approvalsRequired}
        onChange={(value) => onChange({ ...rule, approvalsRequired: value ?? '1' })}
      />
      <Select
        label={label('role')}
        w={170}
        data={[{ value: ANY_ROLE, label: 'Any approver' }, ...roles.map((role) => ({ value: role, label: role }))]}
        allowDeselect={false}
        value={rule.approverRole}
        onChange={(value) => onChange({ ...rule, approverRole: roles.find((role) => role === value) ?? ANY_ROLE })}
      />
      <ActionIcon variant="subtle" color="red" size="lg" onClick={onRemove} aria-label={`Remove rule ${index + 1}`}>
        ×
      </ActionIcon>
    </Group>
  );
}

interface RuleFieldsProps {
  rule: RuleDraft;
  index: number;
  onChange: (rule: RuleDraft) => void;
  onRemove: () => void;
  roles: readonly OrgRole[];
}

/** The policy's rules as fields, each removable, and one more on demand. */
function RulesEditor({
  rules,
  roles,
  onChange,
}: {
  rules: RuleDraft[];
  roles: readonly OrgRole[];
  onChange: (rules: RuleDraft[]) => void;
}) {
  return (
    <>
      {rules.map((rule, index) => (
        <RuleFields
          key={index}
          rule={rule}
          index={index}
          roles={roles}
          onChange={(changed) => onChange(rules.map((each, at) => (at === index ? changed : each)))}
          onRemove={() => onChange(rules.filter((_, at) => at !== index))}
        />
      ))}
      <Group>
        <Button size="xs" variant="default" onClick={() => onChange([...rules, NEW_RULE])}>
          Add a rule
        </Button>
      </Group>
    </>
  );
}

/** The org-admin's editor of one case type's policy: the whole policy is sent, checked by the contracts' schema first. */
function EditPolicy({ kind, policy }: { kind: PolicyKind; policy: ApprovalPolicy }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: ApprovalPolicyBody) => api.call(kind.routes.setApprovalPolicy, { body }),
    onSuccess: () => {
      setOpened(false);
      void queryClient.invalidateQueries({ queryKey: ['approval-policy', kind.key] });
    },
  });
  const roles = ORG_ROLES.filter((role) => hasScope(scopesOfRole(role), kind.approveScope));
  const submit = () => {
    const body = {
      rules: rules.map((rule) => ({
        ...rule,
        approvalsRequired: Number(rule.approvalsRequired),
        approverRole: rule.approverRole === ANY_ROLE ? null : rule.approverRole,
      })),
    };
    const checked = checkForm(approvalPolicyBodySchema, body);
    if (!checked.ok) return setProblem(Object.values(checked.errors)[0] ?? 'Check the rules');
    setProblem(null);
    save.mutate(checked.value);
  };
  return (
    <>
      <Button
        size="xs"
        variant="light"
        onClick={() => (save.reset(), setProblem(null), setRules(policy.rules.map(draftOf)), setOpened(true))}
      >
        {`Edit the ${kind.key} policy`}
      </Button>
      <FormDialog
        title={`Approval policy of ${kind.key}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={save.isPending}
        error={save.error}
        failure="Could not save the policy"
        submitLabel="Save policy"
        size="lg"
      >
        <Text size="sm">
          Per currency: a case of more than the amount needs two different approvers, an approver of a role, or both. Cases already open
          keep what they were opened under.
        </Text>
        <RulesEditor rules={rules} roles={roles} onChange={setRules} />
        {problem && (
          <Text size="sm" c="red" role="alert">
            {problem}
          </Text>
        )}
      </FormDialog>
    </>
  );
}

function KindPolicy({ kind }: { kind: PolicyKind }) {
  const { scopes } = usePrincipal();
  const policy = useQuery({
    queryKey: ['approval-policy', kind.key],
    queryFn: ({ signal }) => api.call(kind.routes.getApprovalPolicy, { signal }),
    enabled: canCall(scopes, kind.routes.getApprovalPolicy),
  });
  if (!canCall(scopes, kind.routes.getApprovalPolicy)) return null;
  if (policy.isPending) return <LoadingState label={`Loading the ${kind.key} policy`} />;
  if (policy.isError) return <ErrorState error={policy.error} title={`Could not load the ${kind.key} policy`} />;
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3} size="h4">
          {kind.title}
        </Title>
        {canCall(scopes, kind.routes.setApprovalPolicy) && <EditPolicy kind={kind} policy={policy.data} />}
      </Group>
      <RulesTable kind={kind} policy={policy.data} />
      {policy.data.updatedBy && policy.data.updatedAt && (
        <Text size="xs" c="dimmed">
          Set by <MemberName memberId={policy.data.updatedBy} />, <DateTime value={policy.data.updatedAt} />
        </Text>
      )}
    </Stack>
  );
}

/** The tenant's approval policies, beside the cases they govern; an org-admin edits them. */
export function ApprovalPoliciesSection() {
  return (
    <Stack gap="sm" component="section" aria-labelledby="approval-policies">
      <Title order={2} size="h3" id="approval-policies">
        Approval policies
      </Title>
      {POLICY_KINDS.map((kind) => (
        <KindPolicy key={kind.key} kind={kind} />
      ))}
    </Stack>
  );
}

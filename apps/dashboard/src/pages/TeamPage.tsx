import { Badge, Button, Group, Select } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import {
  MEMBER_STATUSES,
  ORG_ROLES,
  type OrgRole,
  type TeamMember,
  teamRoutes,
  type UpdateTeamMemberBody,
  updateTeamMemberBodySchema,
} from '@wallet/contracts';
import { useMemo, useState } from 'react';
import { api } from '../api/browser';
import { isApiError } from '../api/errors';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { teamFiltersSchema } from '../app/team-filters';
import { grantableRoles } from '../auth/grants';
import { canCall } from '../auth/scopes';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DateTime } from '../components/DateTime';
import { type FilterField, FilterForm } from '../components/FilterForm';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm } from '../forms/schema';
import { FormDialog } from '../components/FormDialog';
import { listKeys } from '../app/filters';
import { InviteMember, ResendInvite } from './TeamInvites';

const routeApi = getRouteApi('/_session/team');

const STATUS_COLORS: Record<TeamMember['status'], string> = { active: 'green', invited: 'yellow', deactivated: 'gray' };

/** The refusals of a member change a user can act on, said as what they mean. */
function memberChangeErrorTitle(error: unknown, doing: string): string {
  if (isApiError(error, 'LAST_ORG_ADMIN')) return 'The organization must keep an active org-admin';
  if (isApiError(error, 'SCOPE_ESCALATION')) return 'Your role does not cover this change';
  return `Could not ${doing}`;
}

function useMemberChange(member: TeamMember, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateTeamMemberBody) => api.call(teamRoutes.update, { params: { memberId: member.id }, body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['team'] });
      onDone();
    },
  });
}

function ChangeRole({ member, roles }: { member: TeamMember; roles: OrgRole[] }) {
  const [opened, setOpened] = useState(false);
  const [orgRole, setOrgRole] = useState<OrgRole>(member.orgRole);
  const [problem, setProblem] = useState<string | undefined>();
  const change = useMemberChange(member, () => setOpened(false));
  const submit = () => {
    const checked = checkForm(updateTeamMemberBodySchema, { orgRole });
    if (!checked.ok) return setProblem(checked.errors.orgRole ?? checked.errors.form);
    setProblem(undefined);
    change.mutate(checked.value);
  };
  return (
    <>
      <Button
        size="xs"
        variant="default"
        onClick={() => (change.reset(), setOrgRole(member.orgRole), setOpened(true))}
        aria-label={`Change role of ${member.name}`}
      >
        Change role
      </Button>
      <FormDialog
        title={`Change the role of ${member.name}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={change.isPending}
        error={change.error}
        failure={memberChangeErrorTitle(change.error, 'change the role')}
        submitLabel="Change role"
        submitDisabled={orgRole === member.orgRole}
      >
        <Select
          label="Role"
          description="Takes effect on the member's next request"
          data={roles}
          value={orgRole}
          onChange={(value) => setOrgRole((value as OrgRole | null) ?? member.orgRole)}
          allowDeselect={false}
          error={problem}
          data-autofocus
        />
      </FormDialog>
    </>
  );
}

/** Deactivate (its sessions end at once) or reactivate, whichever the member's status allows. */
function ChangeStatus({ member }: { member: TeamMember }) {
  const [opened, setOpened] = useState(false);
  const change = useMemberChange(member, () => setOpened(false));
  const deactivating = member.status !== 'deactivated';
  const label = deactivating ? 'Deactivate' : 'Reactivate';
  return (
    <>
      <Button
        size="xs"
        variant="light"
        color={deactivating ? 'red' : 'green'}
        onClick={() => (change.reset(), setOpened(true))}
        aria-label={`${label} ${member.name}`}
      >
        {label}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`${label} ${member.name}`}
        description={
          deactivating
            ? `${member.email} will be signed out everywhere at once and cannot sign in until reactivated.`
            : `${member.email} will be able to sign in again as ${member.orgRole}.`
        }
        confirmLabel={label}
        color={deactivating ? 'red' : 'green'}
        onConfirm={() => change.mutate({ status: deactivating ? 'deactivated' : 'active' })}
        pending={change.isPending}
        error={change.error}
        errorTitle={memberChangeErrorTitle(change.error, label.toLowerCase())}
      />
    </>
  );
}

function MemberActions({ member }: { member: TeamMember }) {
  const principal = usePrincipal();
  const roles = grantableRoles(principal.scopes);
  // The server refuses changes to a member whose role the session does not cover: no buttons for them.
  if (!canCall(principal.scopes, teamRoutes.update) || !roles.includes(member.orgRole)) return null;
  return (
    <Group gap="xs" wrap="nowrap">
      <ChangeRole member={member} roles={roles} />
      <ChangeStatus member={member} />
      {member.status === 'invited' && canCall(principal.scopes, teamRoutes.resendInvite) && <ResendInvite member={member} />}
    </Group>
  );
}

const TEAM_FILTERS: readonly FilterField[] = [
  { name: 'orgRole', label: 'Role', options: ORG_ROLES, width: 170 },
  { name: 'status', label: 'Status', options: MEMBER_STATUSES },
];

function teamColumns(ownMemberId: string) {
  const helper = columnsOf<TeamMember>();
  return helper.columns([
    helper.accessor('name', {
      header: 'Name',
      cell: (info) => (info.row.original.id === ownMemberId ? `${info.getValue()} (you)` : info.getValue()),
    }),
    helper.accessor('email', { header: 'Email' }),
    helper.accessor('orgRole', { header: 'Role' }),
    helper.accessor('status', {
      header: 'Status',
      cell: (info) => (
        <Badge color={STATUS_COLORS[info.getValue()]} variant="light">
          {info.getValue()}
        </Badge>
      ),
    }),
    helper.accessor('createdAt', { header: 'Added', cell: (info) => <DateTime value={info.getValue()} /> }),
    helper.display({ id: 'actions', header: 'Actions', cell: (info) => <MemberActions member={info.row.original} /> }),
  ]);
}

export function TeamPage() {
  const filters = routeApi.useSearch();
  const navigate = routeApi.useNavigate();
  const principal = usePrincipal();
  const keys = listKeys(filters);
  const columns = useMemo(() => teamColumns(principal.memberId), [principal.memberId]);
  return (
    <>
      <Group justify="space-between" align="flex-start">
        <PageTitle>Team</PageTitle>
        <InviteMember />
      </Group>
      <FilterForm
        key={keys.form}
        label="Filter team members"
        schema={teamFiltersSchema}
        fields={TEAM_FILTERS}
        filters={filters}
        onApply={(next) => void navigate({ search: next })}
      />
      <PagedTable
        key={keys.list}
        caption="Team members, newest first"
        queryKey={['team', filters]}
        fetchPage={(page, signal) => api.call(teamRoutes.list, { query: { ...filters, ...page }, signal })}
        columns={columns}
        rowId={(member) => member.id}
        emptyTitle="No members"
        emptyDescription={!keys.filtered ? 'Members you invite show here.' : 'No member matches these filters.'}
      />
    </>
  );
}

import { Alert, Button, CopyButton, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  type InviteTeamMemberBody,
  inviteTeamMemberBodySchema,
  type OrgRole,
  type TeamInvite,
  type TeamMember,
  teamRoutes,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { isApiError } from '../api/errors';
import { usePrincipal } from '../app/principal';
import { grantableRoles } from '../auth/grants';
import { canCall } from '../auth/scopes';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DateTime } from '../components/DateTime';
import { FormDialog } from '../components/FormDialog';
import { checkForm, type FieldErrors } from '../forms/schema';

/**
 * What an invite answered: the address it was emailed to, or, when no email went out, the link
 * to hand over. The link lives only in the state of the component that asked for it (never a
 * query cache, never web storage) and is gone once this dialog closes: the server shows it once.
 */
function InviteResult({ invite, onClose }: { invite: TeamInvite | null; onClose: () => void }) {
  return (
    <Modal opened={invite !== null} onClose={onClose} title={`Invitation for ${invite?.name ?? ''}`} size="lg" centered>
      {invite && (
        <Stack>
          {invite.inviteEmailSent || invite.inviteUrl === null ? (
            <Alert color="green" title={`Invitation e-mailed to ${invite.email}`}>
              <Text size="sm">
                The link in it lets {invite.name} choose a password and sign in as {invite.orgRole}. It expires{' '}
                <DateTime value={invite.inviteExpiresAt} />.
              </Text>
            </Alert>
          ) : (
            <InviteLink invite={invite} url={invite.inviteUrl} />
          )}
          <Group justify="flex-end">
            <Button onClick={onClose} data-autofocus>
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function InviteLink({ invite, url }: { invite: TeamInvite; url: string }) {
  return (
    <>
      <Alert color="yellow" title="No e-mail was sent: copy the link now">
        <Text size="sm">
          Give it to {invite.name} ({invite.email}) through a safe channel: whoever opens it chooses the password of this member. It is
          shown only this once and expires <DateTime value={invite.inviteExpiresAt} />; send the invitation again for a new link.
        </Text>
      </Alert>
      <TextInput
        label="Invitation link"
        value={url}
        readOnly
        ff="monospace"
        autoComplete="off"
        spellCheck={false}
        onFocus={(event) => event.currentTarget.select()}
        rightSectionWidth={80}
        rightSection={
          <CopyButton value={url}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant={copied ? 'filled' : 'light'} color={copied ? 'teal' : undefined} onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        }
      />
    </>
  );
}

const emptyInvite = { name: '', email: '', orgRole: '' };

type InviteValues = typeof emptyInvite;

function InviteFields(props: {
  values: InviteValues;
  errors: FieldErrors;
  set: (field: keyof InviteValues) => (value: string) => void;
  roles: OrgRole[];
}) {
  const { values, errors, set } = props;
  return (
    <>
      <TextInput
        label="Name"
        required
        value={values.name}
        onChange={(event) => set('name')(event.currentTarget.value)}
        error={errors.name}
        data-autofocus
      />
      <TextInput
        label="Email"
        type="email"
        required
        value={values.email}
        onChange={(event) => set('email')(event.currentTarget.value)}
        error={errors.email}
      />
      <Select
        label="Role"
        required
        data={props.roles}
        value={values.orgRole || null}
        onChange={(value) => set('orgRole')(value ?? '')}
        error={errors.orgRole}
      />
    </>
  );
}

/** Invites a member by e-mail: the member chooses its own password through the link. */
export function InviteMember() {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(emptyInvite);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [sent, setSent] = useState<TeamInvite | null>(null);
  const invite = useMutation({
    mutationFn: (body: InviteTeamMemberBody) => api.call(teamRoutes.invite, { body }),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: ['team'] });
      setValues(emptyInvite);
      setOpened(false);
      setSent(answer);
    },
  });
  const set = (field: keyof InviteValues) => (value: string) => setValues((current) => ({ ...current, [field]: value }));
  const submit = () => {
    const checked = checkForm(inviteTeamMemberBodySchema, {
      name: values.name,
      email: values.email.trim(),
      orgRole: values.orgRole as OrgRole,
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    invite.mutate(checked.value);
  };
  if (!canCall(principal.scopes, teamRoutes.invite)) return null;
  return (
    <>
      <Button onClick={() => (invite.reset(), setOpened(true))}>Invite member</Button>
      <FormDialog
        title="Invite a team member"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={invite.isPending}
        error={invite.error}
        failure={isApiError(invite.error, 'EMAIL_TAKEN') ? 'This email is already a member' : 'Could not invite the member'}
        submitLabel="Invite member"
      >
        <Text size="sm">The member gets a link to choose a password. When no e-mail can be sent, you get the link to pass on.</Text>
        <InviteFields values={values} errors={errors} set={set} roles={grantableRoles(principal.scopes)} />
      </FormDialog>
      <InviteResult invite={sent} onClose={() => setSent(null)} />
    </>
  );
}

/** A new invite for a member who has not accepted yet: the earlier link stops working. */
export function ResendInvite({ member }: { member: TeamMember }) {
  const [opened, setOpened] = useState(false);
  const [sent, setSent] = useState<TeamInvite | null>(null);
  const resend = useMutation({
    mutationFn: () => api.call(teamRoutes.resendInvite, { params: { memberId: member.id } }),
    onSuccess: (answer) => {
      setOpened(false);
      setSent(answer);
    },
  });
  return (
    <>
      <Button size="xs" variant="default" onClick={() => (resend.reset(), setOpened(true))} aria-label={`Resend invite to ${member.name}`}>
        Resend invite
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Send ${member.name} a new invitation`}
        description={`${member.email} gets a new link; the earlier invitation link stops working.`}
        confirmLabel="Send new invitation"
        onConfirm={() => resend.mutate()}
        pending={resend.isPending}
        error={resend.error}
        errorTitle={isApiError(resend.error, 'MEMBER_NOT_INVITED') ? 'This member has accepted already' : 'Could not send the invitation'}
      />
      <InviteResult invite={sent} onClose={() => setSent(null)} />
    </>
  );
}

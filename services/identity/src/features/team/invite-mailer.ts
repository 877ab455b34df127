import type { OrgRole } from '@wallet/contracts';
import { escapeHtml, type Mailer } from '../mail/mailer';

export interface InviteEmail {
  to: { name: string; address: string };
  organizationName: string;
  orgRole: OrgRole;
  /** The member who invited, by name; null when no person did (the platform inviting a first admin, an API key). */
  invitedBy: string | null;
  acceptUrl: string;
  expiresAt: Date;
}

export interface InviteMailer {
  send(invite: InviteEmail): Promise<void>;
}

/** The role as the invitee reads it: the role names are what the dashboard shows, org-admin is spelled out. */
function roleText(orgRole: OrgRole): string {
  return orgRole === 'org-admin' ? 'org-admin role (administrator)' : `${orgRole} role`;
}

/** The invite of a team member, an organization's first admin included, sent through identity's mailer. */
export function createInviteMailer(mailer: Mailer): InviteMailer {
  return {
    async send(invite) {
      const lead = invite.invitedBy === null ? 'You have been invited' : `${invite.invitedBy} has invited you`;
      const organization = invite.organizationName;
      await mailer.send({
        to: invite.to,
        subject:
          invite.invitedBy === null ? `You are invited to join ${organization}` : `${invite.invitedBy} invited you to ${organization}`,
        text: [
          `Hello ${invite.to.name},`,
          '',
          `${lead} to join ${organization} with the ${roleText(invite.orgRole)}.`,
          'Choose your password and activate your account here:',
          '',
          invite.acceptUrl,
          '',
          `The link expires at ${invite.expiresAt.toISOString()}.`,
        ].join('\n'),
        html: [
          `<p>Hello ${escapeHtml(invite.to.name)},</p>`,
          `<p>${escapeHtml(lead)} to join <strong>${escapeHtml(organization)}</strong> with the ${escapeHtml(roleText(invite.orgRole))}.</p>`,
          `<p><a href="${escapeHtml(invite.acceptUrl)}">Choose your password and activate your account</a></p>`,
          `<p>The link expires at ${invite.expiresAt.toISOString()}.</p>`,
        ].join('\n'),
      });
    },
  };
}

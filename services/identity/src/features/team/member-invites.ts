import type { OrgRole, TeamInvite, TeamMember } from '@wallet/contracts';
import type { Db, Logger } from '@wallet/kit';
import type { InviteMailer } from './invite-mailer';
import type { InviteToken } from './invite-tokens';
import { markInviteSent } from './team-store';

export interface MemberInvitesDeps {
  db: Db;
  /** Null when no SMTP server is configured: invites are stored, their links handed back instead. */
  mailer: InviteMailer | null;
  /** The dashboard whose accept-invite page the links open. */
  dashboardUrl: string;
  logger: Logger;
}

/** What the email says of the invite besides the member and its link. */
export interface InviteContext {
  organizationName: string;
  orgRole: OrgRole;
  invitedBy: string | null;
}

export type InviteDelivery = Pick<TeamInvite, 'inviteEmailSent' | 'inviteUrl' | 'inviteExpiresAt'>;

/**
 * How an invite reaches its member, for the team's invites and an organization's first admin
 * alike: emailed when a mail server takes it, else its link goes back to the one caller who
 * asked, who hands it over. Runs after the commit that stored the token's hash, so the member
 * exists whether or not the mail server answers.
 */
export class MemberInvites {
  constructor(private readonly deps: MemberInvitesDeps) {}

  acceptUrl(token: string): string {
    return `${this.deps.dashboardUrl.replace(/\/+$/, '')}/accept-invite?token=${encodeURIComponent(token)}`;
  }

  async deliver(member: TeamMember, invite: InviteToken, context: InviteContext): Promise<InviteDelivery> {
    const inviteUrl = this.acceptUrl(invite.token);
    const inviteEmailSent = await this.send(member, inviteUrl, invite.expiresAt, context);
    return { inviteEmailSent, inviteUrl: inviteEmailSent ? null : inviteUrl, inviteExpiresAt: invite.expiresAt.toISOString() };
  }

  /** True only when the mail server accepted the invite; a failure is logged, never thrown. */
  private async send(member: TeamMember, acceptUrl: string, expiresAt: Date, context: InviteContext): Promise<boolean> {
    const { mailer, logger } = this.deps;
    if (!mailer) return false;
    const where = { tenantId: member.tenantId, memberId: member.id };
    try {
      await mailer.send({ to: { name: member.name, address: member.email }, acceptUrl, expiresAt, ...context });
    } catch (error) {
      logger.warn({ err: error, ...where }, 'invite email could not be sent');
      return false;
    }
    try {
      await markInviteSent(this.deps.db, member.id);
    } catch (error) {
      // The email went out; only the record of it is missing.
      logger.warn({ err: error, ...where }, 'invite email sent but not recorded');
    }
    return true;
  }
}

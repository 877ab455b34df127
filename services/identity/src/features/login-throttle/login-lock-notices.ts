import type { TeamMember } from '@wallet/contracts';
import type { Db, Logger } from '@wallet/kit';
import { recordAuditEvents } from '../audit/audit-trail';
import { escapeHtml, type Email, type Mailer } from '../mail/mailer';
import { findLoggingInMembers } from '../team/team-members';

export interface LoginLock {
  email: string;
  failures: number;
  lockedUntil: Date;
}

export interface LoginLockNoticesDeps {
  db: Db;
  /** Null when no SMTP server is configured: the audit trail alone tells. */
  mailer: Mailer | null;
  logger: Logger;
}

interface LockedMembership {
  member: TeamMember;
  tenantName: string;
}

/** Tells the members behind a login address that it was locked: in each tenant's audit trail, and by one email. */
export class LoginLockNotices {
  constructor(private readonly deps: LoginLockNoticesDeps) {}

  async lockStarted(lock: LoginLock): Promise<void> {
    const memberships = await findLoggingInMembers(this.deps.db, lock.email);
    if (memberships.length === 0) return;
    await recordAuditEvents(
      this.deps.db,
      memberships.map(({ member }) => lockedEvent(member, lock)),
    );
    await this.email(memberships, lock);
  }

  /** One email per address, however many organizations it is a member of; a failure is logged, never thrown. */
  private async email(memberships: readonly LockedMembership[], lock: LoginLock): Promise<void> {
    const { mailer, logger } = this.deps;
    const [first] = memberships;
    if (!mailer || !first) return;
    try {
      await mailer.send(lockEmail(memberships, first.member, lock));
    } catch (error) {
      logger.warn({ err: error, memberIds: memberships.map(({ member }) => member.id) }, 'login lock email could not be sent');
    }
  }
}

function lockedEvent(member: TeamMember, lock: LoginLock) {
  return {
    tenantId: member.tenantId,
    environment: null,
    action: 'team_member.login_locked',
    // No one acted on the member: the platform locked its logins.
    actorType: 'system',
    actorId: 'system',
    targetType: 'team_member',
    targetId: member.id,
    metadata: { failures: lock.failures, lockedUntil: lock.lockedUntil.toISOString() },
  };
}

function lockEmail(memberships: readonly LockedMembership[], addressee: TeamMember, lock: LoginLock): Email {
  const organizations = memberships.map(({ tenantName }) => tenantName).join(', ');
  const until = lock.lockedUntil.toISOString();
  return {
    to: { name: addressee.name, address: addressee.email },
    subject: 'Logins with your email are paused after failed attempts',
    text: [
      `Hello ${addressee.name},`,
      '',
      `${lock.failures} logins in a row with your email address (${organizations}) failed on a wrong password,`,
      `so logins with it are paused until ${until}; more failures pause them for longer.`,
      '',
      "If that was not you, someone may be guessing your password: tell your organization's administrator.",
    ].join('\n'),
    html: [
      `<p>Hello ${escapeHtml(addressee.name)},</p>`,
      `<p>${lock.failures} logins in a row with your email address (${escapeHtml(organizations)}) failed on a wrong password,`,
      `so logins with it are paused until ${until}; more failures pause them for longer.</p>`,
      '<p>If that was not you, someone may be guessing your password: tell your organization&#39;s administrator.</p>',
    ].join('\n'),
  };
}

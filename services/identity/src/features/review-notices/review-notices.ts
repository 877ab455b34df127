import {
  type AuditRecordV1,
  type CaseType,
  formatAmount,
  hasScope,
  payoutRoutes,
  scopesOfRole,
  type TeamMember,
  withdrawalRoutes,
} from '@wallet/contracts';
import { type Db, type Logger, type Repeating, startRepeating, type Tx } from '@wallet/kit';
import { escapeHtml, type Email, type Mailer } from '../mail/mailer';
import { activeMembersOf } from '../team/team-members';

/*
 * E-mails to the members who may decide a maker-checker case, when SMTP is configured
 * (docs/decisions/approval-policies.md). A notice is written in the transaction that records the
 * case's audit record, so a notice exists exactly when the record does, and is sent after: the
 * row is leased while sending, deleted once sent, retried until MAX_ATTEMPTS, then given up
 * with a warning (the approvals inbox still lists the case).
 */

/** What each case type's notice says and where its link goes; the approve scope names its reviewers. */
const CASE_TYPES: Readonly<Record<CaseType, { noun: string; approveScope: string; path: (id: string) => string }>> = {
  payout: { noun: 'Payout', approveScope: payoutRoutes.approve.scope, path: (id) => `/payouts/${encodeURIComponent(id)}` },
  withdrawal: {
    noun: 'Withdrawal',
    approveScope: withdrawalRoutes.approve.scope,
    path: (id) => `/treasury/withdrawals/${encodeURIComponent(id)}`,
  },
};

const EVENTS = ['requested', 'approval_recorded'] as const;
type NoticeEvent = (typeof EVENTS)[number];

const MAX_ATTEMPTS = 5;
const LEASE_SECONDS = 300;
const BATCH = 20;
/** Reviewers per notice at the most: a team is tens of members, not thousands. */
const REVIEWERS_MAX = 200;

interface NoticeRow {
  id: string;
  tenant_id: string;
  case_type: CaseType;
  case_id: string;
  event: NoticeEvent;
  requested_by: string;
  approved_by: string | null;
  approver_role: string | null;
  amount: string | null;
  currency_code: string | null;
  attempts: number;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The notice an audit record asks for: a case requested or half approved; null for any other record. */
function noticeOf(record: AuditRecordV1): Omit<NoticeRow, 'id' | 'attempts'> | null {
  const [type, event] = record.action.split('.');
  if (!(type && type in CASE_TYPES) || !EVENTS.includes(event as NoticeEvent)) return null;
  const { metadata } = record;
  const requested = event === 'requested';
  return {
    tenant_id: record.tenantId,
    case_type: type as CaseType,
    case_id: record.targetId,
    event: event as NoticeEvent,
    // The requested record's actor is the maker; an approval's names the maker in its metadata.
    requested_by: requested ? record.actorId : (text(metadata.requestedBy) ?? ''),
    approved_by: requested ? null : record.actorId,
    approver_role: text(metadata.approverRole),
    amount: text(metadata.amount),
    currency_code: text(metadata.currencyCode),
  };
}

export class ReviewNotices {
  constructor(private readonly deps: { db: Db; mailer: Mailer; dashboardUrl: string; logger: Logger }) {}

  /** In the audit record's transaction: the notice it asks for, if any. */
  async enqueue(tx: Tx, record: AuditRecordV1): Promise<void> {
    const notice = noticeOf(record);
    if (notice) await tx('review_notices').insert({ ...notice, environment: record.environment });
  }

  start(intervalMs: number): Repeating {
    return startRepeating(() => this.sendDue(), {
      intervalMs,
      onError: (error) => this.deps.logger.warn({ err: error }, 'review notices could not be sent'),
    });
  }

  /** Leases the notices due, sends each, and forgets each once sent or given up. */
  async sendDue(): Promise<number> {
    const { rows } = await this.deps.db.raw<{ rows: NoticeRow[] }>(
      `UPDATE review_notices SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
       WHERE id IN (SELECT id FROM review_notices WHERE next_attempt_at <= now() ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [LEASE_SECONDS, BATCH],
    );
    for (const notice of rows) await this.send(notice);
    return rows.length;
  }

  private async send(notice: NoticeRow): Promise<void> {
    try {
      const reviewers = await this.reviewersOf(notice);
      for (const reviewer of reviewers) await this.deps.mailer.send(this.email(notice, reviewer));
    } catch (error) {
      if (notice.attempts < MAX_ATTEMPTS) return;
      this.deps.logger.warn({ err: error, caseId: notice.case_id, attempts: notice.attempts }, 'review notice given up');
    }
    await this.deps.db('review_notices').where({ id: notice.id }).delete();
  }

  /** Active members whose role may approve the case, of its policy's role if it names one; not its maker nor its first approver. */
  private async reviewersOf(notice: NoticeRow): Promise<TeamMember[]> {
    const scope = CASE_TYPES[notice.case_type].approveScope;
    const members = await activeMembersOf(this.deps.db, notice.tenant_id, REVIEWERS_MAX);
    return members.filter(
      (member) =>
        hasScope(scopesOfRole(member.orgRole), scope) &&
        (notice.approver_role === null || member.orgRole === notice.approver_role) &&
        member.id !== notice.requested_by &&
        member.id !== notice.approved_by,
    );
  }

  private email(notice: NoticeRow, reviewer: TeamMember): Email {
    const kind = CASE_TYPES[notice.case_type];
    const link = `${this.deps.dashboardUrl.replace(/\/+$/, '')}${kind.path(notice.case_id)}`;
    const money =
      notice.amount && notice.currency_code ? ` of ${notice.currency_code} ${formatAmount(notice.amount, notice.currency_code)}` : '';
    const what =
      notice.event === 'requested'
        ? `${kind.noun} ${notice.case_id}${money} awaits your approval`
        : `${kind.noun} ${notice.case_id} has its first approval and awaits a second`;
    const role = notice.approver_role ? ` Its approval policy asks for an approver of the ${notice.approver_role} role.` : '';
    return {
      to: { name: reviewer.name, address: reviewer.email },
      subject: what,
      text: [`Hello ${reviewer.name},`, '', `${what}.${role}`, '', `Review it here: ${link}`].join('\n'),
      html: [
        `<p>Hello ${escapeHtml(reviewer.name)},</p>`,
        `<p>${escapeHtml(what)}.${escapeHtml(role)}</p>`,
        `<p><a href="${escapeHtml(link)}">Review it</a></p>`,
      ].join('\n'),
    };
  }
}

import type { Environment } from '@wallet/contracts';
import type { Db, Logger } from '@wallet/kit';
import { recordAuditEvents } from '../audit/audit-trail';
import { escapeHtml, type Email, type Mailer } from '../mail/mailer';
import { activeAdminsOf } from '../team/team-members';

export interface DisabledEndpoint {
  tenantId: string;
  environment: Environment;
  endpointId: string;
  url: string;
  reason: 'failing' | 'gone';
}

const REASONS = {
  failing: 'every delivery to it has failed for too long',
  gone: 'it answered 410 Gone, which asks for no more deliveries',
} as const;

/** Tells a tenant that the platform disabled one of its webhook endpoints: in its audit trail, and by email to its org-admins. */
export class EndpointNotices {
  constructor(private readonly deps: { db: Db; mailer: Mailer | null; logger: Logger }) {}

  async disabled(endpoint: DisabledEndpoint): Promise<void> {
    await recordAuditEvents(this.deps.db, [
      {
        tenantId: endpoint.tenantId,
        environment: endpoint.environment,
        action: 'webhook_endpoint.disabled',
        // No one acted: the platform gave up on the endpoint.
        actorType: 'system',
        actorId: 'system',
        targetType: 'webhook_endpoint',
        targetId: endpoint.endpointId,
        metadata: { reason: endpoint.reason, url: endpoint.url },
      },
    ]);
    this.deps.logger.warn({ endpointId: endpoint.endpointId, reason: endpoint.reason }, 'webhook endpoint disabled');
    await this.email(endpoint);
  }

  /** One email per active org-admin; a failure is logged, never thrown (the audit trail has it). */
  private async email(endpoint: DisabledEndpoint): Promise<void> {
    const { mailer, logger } = this.deps;
    if (!mailer) return;
    for (const admin of await activeAdminsOf(this.deps.db, endpoint.tenantId)) {
      try {
        await mailer.send(disabledEmail({ name: admin.name, address: admin.email }, endpoint));
      } catch (error) {
        logger.warn({ err: error, memberId: admin.id }, 'webhook endpoint notice could not be emailed');
      }
    }
  }
}

function disabledEmail(to: { name: string; address: string }, endpoint: DisabledEndpoint): Email {
  const lines = [
    `Hello ${to.name},`,
    '',
    `Webhook endpoint ${endpoint.endpointId} (${endpoint.url}, ${endpoint.environment}) was disabled: ${REASONS[endpoint.reason]}.`,
    'Events are no longer sent to it. Once it answers again, enable it on the developer screen and replay what it missed.',
  ];
  return {
    to,
    subject: `A webhook endpoint was disabled (${endpoint.environment})`,
    text: lines.join('\n'),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join(''),
  };
}

import { escapeHtml, type Mailer } from '../mail/mailer';

export interface InviteEmail {
  to: { name: string; address: string };
  organizationName: string;
  acceptUrl: string;
  expiresAt: Date;
}

export interface InviteMailer {
  send(invite: InviteEmail): Promise<void>;
}

/** The invite of an organization's first admin, sent through identity's mailer. */
export function createInviteMailer(mailer: Mailer): InviteMailer {
  return {
    async send(invite) {
      await mailer.send({
        to: invite.to,
        subject: `You are invited to administer ${invite.organizationName}`,
        text: [
          `Hello ${invite.to.name},`,
          '',
          `You have been invited as the administrator of ${invite.organizationName}.`,
          'Choose your password and activate your account here:',
          '',
          invite.acceptUrl,
          '',
          `The link expires at ${invite.expiresAt.toISOString()}.`,
        ].join('\n'),
        html: [
          `<p>Hello ${escapeHtml(invite.to.name)},</p>`,
          `<p>You have been invited as the administrator of <strong>${escapeHtml(invite.organizationName)}</strong>.</p>`,
          `<p><a href="${escapeHtml(invite.acceptUrl)}">Choose your password and activate your account</a></p>`,
          `<p>The link expires at ${invite.expiresAt.toISOString()}.</p>`,
        ].join('\n'),
      });
    },
  };
}

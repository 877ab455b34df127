import nodemailer from 'nodemailer';

export interface InviteEmail {
  to: { name: string; address: string };
  organizationName: string;
  acceptUrl: string;
  expiresAt: Date;
}

export interface InviteMailer {
  send(invite: InviteEmail): Promise<void>;
  close(): void;
}

// A slow or dead mail server must not hold an organization request open for long.
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Sends invite emails over SMTP (`smtp://` or `smtps://` URL, credentials in the URL if any). */
export function createInviteMailer(options: { smtpUrl: string; from: string }): InviteMailer {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  return {
    async send(invite) {
      await transport.sendMail({
        from: options.from,
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
    close() {
      transport.close();
    },
  };
}

import nodemailer from 'nodemailer';

export interface Email {
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

/** Identity's one SMTP transport; each kind of email identity sends composes its own message and sends it here. */
export interface Mailer {
  send(email: Email): Promise<void>;
  close(): void;
}

// A slow or dead mail server must not hold a request, or a shutdown, open for long.
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Sends over SMTP (`smtp://` or `smtps://` URL, credentials in the URL if any). */
export function createMailer(options: { smtpUrl: string; from: string }): Mailer {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  return {
    async send(email) {
      await transport.sendMail({ from: options.from, ...email });
    },
    close() {
      transport.close();
    },
  };
}

import { randomBytes } from 'node:crypto';

/** 32 random bytes, base64url, behind a prefix that names what it is in a config file or a leak report. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Associated data of a provider's sealed webhook secrets: a ciphertext moved to another provider's row does not open. */
export function webhookSecretContext(providerId: string): string {
  return `momo_provider.webhook_secret:${providerId}`;
}

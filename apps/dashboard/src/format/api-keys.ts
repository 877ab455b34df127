import type { ApiKey, ApiKeyWithSecret } from '@wallet/contracts';

/** A secret shown once: what it is called, and its value. */
export interface RevealedSecret {
  label: 'Secret key' | 'Signing secret';
  value: string;
}

/**
 * Splits a creation's or rotation's answer into the key as the list shows it and its secret.
 * Only the key may be kept (query or mutation cache); the secret goes to the one dialog that
 * shows it and is dropped when that closes.
 */
export function splitSecret(answer: ApiKeyWithSecret): { apiKey: ApiKey; secret: RevealedSecret | null } {
  const { key, signingSecret, ...apiKey } = answer;
  if (key !== undefined) return { apiKey, secret: { label: 'Secret key', value: key } };
  if (signingSecret !== undefined) return { apiKey, secret: { label: 'Signing secret', value: signingSecret } };
  return { apiKey, secret: null };
}

/** How a key is recognised without its secret: `sk_live_…a1b2` for a secret key; an HMAC key by its id. */
export function credentialLabel(key: Pick<ApiKey, 'authMode' | 'keyPrefix' | 'last4' | 'id'>): string {
  if (key.authMode === 'hmac') return `HMAC-signed · ${key.id}`;
  return `${key.keyPrefix ?? ''}…${key.last4 ?? ''}`;
}

/** The restrictions in force, in words; empty when the key has none. */
export function restrictionLabels(restrictions: ApiKey['restrictions']): string[] {
  const labels: string[] = [];
  if (restrictions.requireRequestSigning) labels.push('Signed requests only');
  if (restrictions.requireActorHeaders) labels.push('Actor headers required');
  if (restrictions.allowedIps !== null && restrictions.allowedIps.length > 0) labels.push(`From ${restrictions.allowedIps.join(', ')}`);
  return labels;
}

import { z } from 'zod';

/** A master key as configured: `<keyId>:<base64 of exactly 32 bytes>`. */
export interface MasterKey {
  id: string;
  /** 32 bytes: an AES-256 key. */
  key: Buffer;
}

const MASTER_KEY_FORMAT = '<keyId>:<base64 of exactly 32 bytes>';
const KEY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Standard base64, padding optional: 32 bytes are 43 characters and one `=`. */
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

/** The problem with a configured value, or the key. Messages never repeat the value: it is a secret. */
function parseMasterKey(text: string): MasterKey | string {
  const colon = text.indexOf(':');
  if (colon < 0) return `must be ${MASTER_KEY_FORMAT}`;
  const id = text.slice(0, colon).trim();
  const encoded = text.slice(colon + 1).trim();
  if (!KEY_ID_PATTERN.test(id)) return `the key id must be 1-64 letters, digits, '.', '_' or '-' (format ${MASTER_KEY_FORMAT})`;
  if (!BASE64_PATTERN.test(encoded)) return `the key of "${id}" is not base64 (format ${MASTER_KEY_FORMAT})`;
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 32) return `the key of "${id}" is ${key.length} bytes; it must be exactly 32`;
  return { id, key };
}

/** `SECRETS_ENCRYPTION_KEY`: the key new secrets are encrypted with. */
export const masterKeyConfigSchema = z.string({ error: `is required, as ${MASTER_KEY_FORMAT}` }).transform((text, context): MasterKey => {
  const parsed = parseMasterKey(text);
  if (typeof parsed === 'string') {
    context.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});

/** `SECRETS_ENCRYPTION_KEYS_OLD`: earlier master keys, comma-separated, only ever used to decrypt. */
export const oldMasterKeysConfigSchema = z.string().transform((text, context): MasterKey[] => {
  const keys: MasterKey[] = [];
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  entries.forEach((entry, index) => {
    const parsed = parseMasterKey(entry);
    if (typeof parsed === 'string') context.addIssue({ code: 'custom', message: `entry ${index + 1}: ${parsed}` });
    else keys.push(parsed);
  });
  return keys;
});

/** The current master key and every key that may still decrypt, by id. */
export class MasterKeyRing {
  private readonly byId = new Map<string, MasterKey>();

  constructor(
    readonly current: MasterKey,
    old: readonly MasterKey[] = [],
  ) {
    for (const key of [current, ...old]) {
      const known = this.byId.get(key.id);
      // The same id for two keys would make some ciphertexts undecryptable, depending on which won.
      if (known && !known.key.equals(key.key)) {
        throw new Error(
          `SECRETS_ENCRYPTION_KEYS_OLD: key id "${key.id}" is given twice (or is the id of SECRETS_ENCRYPTION_KEY) with a different key`,
        );
      }
      this.byId.set(key.id, key);
    }
  }

  find(id: string): MasterKey | undefined {
    return this.byId.get(id);
  }
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKeyRing } from './master-keys';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A secret at rest: `iv | ciphertext | tag`, and the id of the master key that sealed it. */
export interface SealedSecret {
  ciphertext: Buffer;
  masterKeyId: string;
}

/**
 * Secrets identity must be able to read back (HMAC signing secrets, webhook secrets), sealed
 * with AES-256-GCM under a master key from the environment. Each seal is bound to a context
 * (what the secret belongs to) as associated data, so a ciphertext copied onto another row
 * does not open there.
 */
export class SecretBox {
  constructor(private readonly ring: MasterKeyRing) {}

  get currentKeyId(): string {
    return this.ring.current.id;
  }

  /** Whether ciphertexts under this master key id can be opened. */
  canOpen(masterKeyId: string): boolean {
    return this.ring.find(masterKeyId) !== undefined;
  }

  seal(plaintext: string, context: string): SealedSecret {
    const { id, key } = this.ring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { ciphertext: Buffer.concat([iv, body, cipher.getAuthTag()]), masterKeyId: id };
  }

  /** Throws when the master key is unknown or the ciphertext, its context or its key does not authenticate. */
  open(sealed: SealedSecret, context: string): string {
    const masterKey = this.ring.find(sealed.masterKeyId);
    if (!masterKey)
      throw new Error(`no master key "${sealed.masterKeyId}" is configured (SECRETS_ENCRYPTION_KEY, SECRETS_ENCRYPTION_KEYS_OLD)`);
    const { ciphertext } = sealed;
    if (ciphertext.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret is truncated');
    const decipher = createDecipheriv(ALGORITHM, masterKey.key, ciphertext.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES));
    return Buffer.concat([decipher.update(ciphertext.subarray(IV_BYTES, ciphertext.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}

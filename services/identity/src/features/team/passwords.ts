import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id (the library's default algorithm) at the OWASP baseline: 19 MiB, 2 passes, 1 lane.
 * Written out so that a change of the library's defaults cannot silently weaken new hashes.
 */
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  const hashed = await hash(password, ARGON2_OPTIONS);
  if (!hashed.startsWith('$argon2id$')) throw new Error('password hashing did not produce an argon2id hash');
  return hashed;
}

/** False for a wrong password and for a hash that cannot be read alike: neither lets anyone in. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | null = null;

/** Made once per process, of a password nobody knows; starting it early keeps the first unknown login as slow as the others. */
export function primeDummyHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/**
 * The work of a real verification for an address that has no password to check, so that an
 * unknown address answers no faster than a wrong password.
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  await verifyPassword(await primeDummyHash(), password);
  return false;
}

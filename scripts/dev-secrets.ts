import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Kept beside the installed packages (ignored by git): a restart reuses them, so the system
// key stays the same and signing secrets encrypted by an earlier run stay readable.
export const DEV_SECRETS_FILE = path.join(path.resolve(__dirname, '..'), 'node_modules', '.cache', 'wallet', 'dev-secrets.json');

export interface DevSecrets {
  SYSTEM_API_KEY: string;
  INTERNAL_TOKEN_SECRET: string;
  SECRETS_ENCRYPTION_KEY: string;
}

/** The development secrets of this checkout: made once, then reused. */
export function devSecrets(): { secrets: DevSecrets; made: boolean } {
  if (existsSync(DEV_SECRETS_FILE)) {
    const stored = JSON.parse(readFileSync(DEV_SECRETS_FILE, 'utf8')) as DevSecrets;
    // Files of earlier checkouts hold the bare key; the master key now carries its id (`<id>:<base64>`).
    if (!stored.SECRETS_ENCRYPTION_KEY.includes(':')) stored.SECRETS_ENCRYPTION_KEY = `dev1:${stored.SECRETS_ENCRYPTION_KEY}`;
    return { secrets: stored, made: false };
  }
  const secrets: DevSecrets = {
    SYSTEM_API_KEY: `sys_dev_${randomBytes(24).toString('base64url')}`,
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    SECRETS_ENCRYPTION_KEY: `dev1:${randomBytes(32).toString('base64')}`,
  };
  mkdirSync(path.dirname(DEV_SECRETS_FILE), { recursive: true });
  writeFileSync(DEV_SECRETS_FILE, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return { secrets, made: true };
}

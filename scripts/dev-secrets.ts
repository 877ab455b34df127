import path from 'node:path';

// Kept beside the installed packages (ignored by git): a restart reuses them, so the system
// key stays the same and signing secrets encrypted by an earlier run stay readable.
export const DEV_SECRETS_FILE = path.join(path.resolve(__dirname, '..'), 'node_modules', '.cache', 'wallet', 'dev-secrets.json');

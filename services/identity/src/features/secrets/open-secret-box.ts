import type { Db, Logger } from '@wallet/kit';
import { type MasterKey, MasterKeyRing } from './master-keys';
import { reencryptSealedSecrets, type SealedColumn } from './reencrypt';
import { SecretBox } from './secret-box';

export interface OpenSecretBoxOptions {
  /** SECRETS_ENCRYPTION_KEY. */
  currentKey: MasterKey;
  /** SECRETS_ENCRYPTION_KEYS_OLD. */
  oldKeys: readonly MasterKey[];
  db: Db;
  logger: Logger;
  /** Every place the service keeps sealed secrets. */
  columns: readonly SealedColumn[];
}

/** The service's secret box, once every stored secret is sealed under the current master key. */
export async function openSecretBox(options: OpenSecretBoxOptions): Promise<SecretBox> {
  const box = new SecretBox(new MasterKeyRing(options.currentKey, options.oldKeys));
  await reencryptSealedSecrets({ db: options.db, box, logger: options.logger, columns: options.columns });
  return box;
}

import type { Db, Logger } from '@wallet/kit';
import type { SecretBox } from './secret-box';

/** Where a feature keeps sealed secrets, so the start-up can re-encrypt them under the current master key. */
export interface SealedColumn {
  /** For logs and errors: what is sealed there. */
  what: string;
  table: string;
  /** The row's primary key. */
  idColumn: string;
  ciphertextColumn: string;
  masterKeyIdColumn: string;
  /** The column holding what each secret belongs to, and the context it was sealed with from it. */
  ownerColumn: string;
  contextOf: (owner: string) => string;
}

const BATCH_SIZE = 200;

/** Master key ids that sealed rows use and the ring cannot open: a start with them would fail at the first use instead. */
async function missingMasterKeys(db: Db, box: SecretBox, columns: readonly SealedColumn[]): Promise<Map<string, string[]>> {
  const missing = new Map<string, string[]>();
  for (const column of columns) {
    const ids: string[] = await db(column.table)
      .whereNotNull(column.ciphertextColumn)
      .distinct(column.masterKeyIdColumn)
      .pluck(column.masterKeyIdColumn);
    for (const id of ids.filter((candidate) => !box.canOpen(candidate))) missing.set(id, [...(missing.get(id) ?? []), column.what]);
  }
  return missing;
}

/** Re-seals one row under the current key, unless someone else already did (two instances starting together). */
async function reencryptRow(db: Db, box: SecretBox, column: SealedColumn, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row: Record<string, unknown> | undefined = await tx(column.table)
      .where(column.idColumn, id)
      .whereNotNull(column.ciphertextColumn)
      .whereNot(column.masterKeyIdColumn, box.currentKeyId)
      .forUpdate()
      .first([column.ciphertextColumn, column.masterKeyIdColumn, column.ownerColumn]);
    if (!row) return false;
    const context = column.contextOf(String(row[column.ownerColumn]));
    const plaintext = box.open(
      { ciphertext: row[column.ciphertextColumn] as Buffer, masterKeyId: String(row[column.masterKeyIdColumn]) },
      context,
    );
    const sealed = box.seal(plaintext, context);
    await tx(column.table)
      .where(column.idColumn, id)
      .update({ [column.ciphertextColumn]: sealed.ciphertext, [column.masterKeyIdColumn]: sealed.masterKeyId });
    return true;
  });
}

/**
 * Run at start: every secret sealed under an older master key is re-sealed under the current
 * one, a row per transaction, so rotating the master key is: move the old value to
 * SECRETS_ENCRYPTION_KEYS_OLD, set the new one, restart. Once no row needs the old key any
 * more, it can be dropped from SECRETS_ENCRYPTION_KEYS_OLD. Refuses (throws) before changing
 * anything when a row needs a master key that is not configured.
 */
export async function reencryptSealedSecrets(options: {
  db: Db;
  box: SecretBox;
  logger: Logger;
  columns: readonly SealedColumn[];
}): Promise<number> {
  const { db, box, logger, columns } = options;
  const missing = await missingMasterKeys(db, box, columns);
  if (missing.size > 0) {
    const listed = [...missing].map(([id, whats]) => `"${id}" (${whats.join(', ')})`).join(', ');
    throw new Error(
      `stored secrets are encrypted with master key ${listed}, which neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEYS_OLD holds: add that key to SECRETS_ENCRYPTION_KEYS_OLD`,
    );
  }
  let total = 0;
  for (const column of columns) {
    let count = 0;
    for (;;) {
      const ids: string[] = await db(column.table)
        .whereNotNull(column.ciphertextColumn)
        .whereNot(column.masterKeyIdColumn, box.currentKeyId)
        .orderBy(column.idColumn)
        .limit(BATCH_SIZE)
        .pluck(column.idColumn);
      if (ids.length === 0) break;
      for (const id of ids) if (await reencryptRow(db, box, column, String(id))) count += 1;
    }
    if (count > 0)
      logger.info({ count, what: column.what, masterKeyId: box.currentKeyId }, 'secrets re-encrypted under the current master key');
    total += count;
  }
  return total;
}

import { type AnswerSealing, type Db, IDEMPOTENCY_TABLE, type IdempotencyScope, type Logger } from '@wallet/kit';
import type { SecretBox } from './secret-box';

/** `sealed1:<masterKeyId>:` then iv | ciphertext | tag: the master key travels with the sealed answer. */
const PREFIX = 'sealed1:';

function answerContext(where: { scope: IdempotencyScope; key: string }): string {
  return `idempotency-answer:${where.scope.tenantId}:${where.scope.environment}:${where.key}`;
}

function sealedPrefix(masterKeyId: string): Buffer {
  return Buffer.from(`${PREFIX}${masterKeyId}:`, 'latin1');
}

/** The master key id and ciphertext of a sealed answer; master key ids hold no ':'. */
function parseSealed(body: Buffer): { masterKeyId: string; ciphertext: Buffer } {
  const head = body.subarray(0, PREFIX.length + 80).toString('latin1');
  const end = head.indexOf(':', PREFIX.length);
  if (!head.startsWith(PREFIX) || end < 0) throw new Error('a remembered answer of a sealed route is not sealed');
  return { masterKeyId: head.slice(PREFIX.length, end), ciphertext: body.subarray(end + 1) };
}

/**
 * Idempotency answers that hold a secret shown once (a new API key or signing secret, a webhook
 * secret) are kept sealed under the master key, as those secrets are: a replay gives the client
 * its first answer again, and the table never holds the secret in clear. Bound to the key's
 * scope and name, so a sealed answer copied onto another key does not open there.
 */
export function sealedAnswers(box: SecretBox): AnswerSealing {
  return {
    seal(body, where) {
      const sealed = box.seal(body.toString('latin1'), answerContext(where));
      return Buffer.concat([sealedPrefix(sealed.masterKeyId), sealed.ciphertext]);
    },
    open(body, where) {
      return Buffer.from(box.open(parseSealed(body), answerContext(where)), 'latin1');
    },
  };
}

interface SealedRow {
  tenant_id: string;
  environment: 'test' | 'live';
  idempotency_key: string;
  response_body: Buffer;
}

/**
 * Run at start with the other sealed secrets: answers still replayable and sealed under an
 * older master key are re-sealed under the current one. A master key neither variable holds
 * stops the start, naming it, as for every other sealed value; expired answers are left to
 * the purge.
 */
export async function reencryptSealedAnswers(options: { db: Db; box: SecretBox; logger: Logger }): Promise<number> {
  const { db, box, logger } = options;
  const current = sealedPrefix(box.currentKeyId);
  const rows: SealedRow[] = await db(IDEMPOTENCY_TABLE)
    .where('status', 'completed')
    .where('expires_at', '>', db.fn.now())
    .whereRaw('position(?::bytea in response_body) = 1', [Buffer.from(PREFIX, 'latin1')])
    .whereRaw('position(?::bytea in response_body) <> 1', [current])
    .select('tenant_id', 'environment', 'idempotency_key', 'response_body');
  const missing = [...new Set(rows.map((row) => parseSealed(row.response_body).masterKeyId).filter((id) => !box.canOpen(id)))];
  if (missing.length > 0) {
    throw new Error(
      `remembered idempotency answers are encrypted with master key ${missing.map((id) => `"${id}"`).join(', ')}, which neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEYS_OLD holds: add it to SECRETS_ENCRYPTION_KEYS_OLD`,
    );
  }
  const sealing = sealedAnswers(box);
  let count = 0;
  for (const row of rows) {
    const where = { scope: { tenantId: row.tenant_id, environment: row.environment }, key: row.idempotency_key };
    const resealed = sealing.seal(sealing.open(row.response_body, where), where);
    // Only the row as read: a concurrent start re-sealing it first makes this a no-op.
    count += await db(IDEMPOTENCY_TABLE)
      .where({
        tenant_id: row.tenant_id,
        environment: row.environment,
        idempotency_key: row.idempotency_key,
        response_body: row.response_body,
      })
      .update({ response_body: resealed });
  }
  if (count > 0)
    logger.info({ count, masterKeyId: box.currentKeyId }, 'remembered idempotency answers re-encrypted under the current master key');
  return count;
}

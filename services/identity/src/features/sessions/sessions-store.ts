import type { Environment, OrgRole } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';

export interface NewSession {
  id: string;
  tokenHash: string;
  tenantId: string;
  memberId: string;
  environment: Environment;
  ttlSeconds: number;
}

export interface LiveSession {
  id: string;
  tenantId: string;
  memberId: string;
  environment: Environment;
  orgRole: OrgRole;
  expiresAt: Date;
}

export interface RevokedSession {
  id: string;
  tenantId: string;
  memberId: string;
  environment: Environment;
}

/** The expiry is taken from the database clock, the same clock every later check compares with. */
export async function insertSession(tx: Tx, session: NewSession): Promise<{ expiresAt: Date }> {
  const result = await tx.raw(
    `INSERT INTO sessions (id, token_hash, tenant_id, member_id, environment, expires_at)
     VALUES (?, ?, ?, ?, ?, now() + make_interval(secs => ?))
     RETURNING expires_at`,
    [session.id, session.tokenHash, session.tenantId, session.memberId, session.environment, session.ttlSeconds],
  );
  const row = (result.rows as Array<{ expires_at: Date }>)[0];
  if (!row) throw new Error('session insert returned no row');
  return { expiresAt: row.expires_at };
}

/** A session that is neither expired nor revoked, of a member who is still active; its role as it is now. */
export async function findLiveSession(db: Db, tokenHash: string): Promise<LiveSession | null> {
  const result = await db.raw(
    `SELECT s.id, s.tenant_id, s.member_id, s.environment, s.expires_at, m.org_role
       FROM sessions s
       JOIN team_members m ON m.id = s.member_id AND m.tenant_id = s.tenant_id
      WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > now() AND m.status = 'active'`,
    [tokenHash],
  );
  const row = (
    result.rows as Array<{
      id: string;
      tenant_id: string;
      member_id: string;
      environment: Environment;
      expires_at: Date;
      org_role: OrgRole;
    }>
  )[0];
  if (!row) return null;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    memberId: row.member_id,
    environment: row.environment,
    orgRole: row.org_role,
    expiresAt: row.expires_at,
  };
}

/** Revokes the session of this token if it is still open; null when there was none to revoke. */
export async function revokeSessionByToken(tx: Tx, tokenHash: string): Promise<RevokedSession | null> {
  const result = await tx.raw(
    `UPDATE sessions SET revoked_at = now()
      WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > now()
      RETURNING id, tenant_id, member_id, environment`,
    [tokenHash],
  );
  const row = (result.rows as Array<{ id: string; tenant_id: string; member_id: string; environment: Environment }>)[0];
  return row ? { id: row.id, tenantId: row.tenant_id, memberId: row.member_id, environment: row.environment } : null;
}

/** Revokes every open session of the member; returns how many there were. */
export async function revokeMemberSessions(tx: Tx, memberId: string): Promise<number> {
  const result = await tx.raw(`UPDATE sessions SET revoked_at = now() WHERE member_id = ? AND revoked_at IS NULL AND expires_at > now()`, [
    memberId,
  ]);
  return result.rowCount ?? 0;
}

import {
  type AcceptInviteBody,
  type Environment,
  type LoginBody,
  type Session,
  type SessionPrincipal,
  scopesOfRole,
  type TeamMember,
} from '@wallet/contracts';
import { AppError, type Db, type Tx } from '@wallet/kit';
import { recordAuditEvents } from '../audit/audit-trail';
import type { LoginThrottle } from '../login-throttle/login-throttle';
import { hashInviteToken } from '../team/invite-tokens';
import { hashPassword, primeDummyHash, verifyAgainstNothing, verifyPassword } from '../team/passwords';
import { acceptInvite, findLoginCandidates, findOpenInvite, type LoginCandidate } from '../team/team-members';
import { hashSessionToken, looksLikeSessionToken, newSessionId, newSessionToken } from './session-tokens';
import { findLiveSession, insertSession, revokeMemberSessions, revokeSessionByToken } from './sessions-store';

export interface SessionsDeps {
  db: Db;
  /** IDENTITY_SESSION_TTL_SECONDS. */
  ttlSeconds: number;
  throttle: LoginThrottle;
}

/** How the member proved who it is; kept on the session.created record. */
type SessionMethod = 'password' | 'invite';

function invalidCredentials(): AppError {
  // One answer for an unknown address and a wrong password: the API does not confirm who is a member.
  return new AppError('INVALID_CREDENTIALS', 'The email or password is not correct');
}

function invalidSession(): AppError {
  return new AppError('INVALID_SESSION', 'The session is unknown, expired or revoked');
}

function invalidInvite(): AppError {
  return new AppError('INVALID_INVITE_TOKEN', 'The invite link is unknown, expired or already used');
}

/** Dashboard sessions: a team member's password or invite becomes a bearer token for one environment. */
export class SessionsService {
  constructor(private readonly deps: SessionsDeps) {
    void primeDummyHash().catch(() => undefined);
  }

  /** Counted by the login throttle before any password is checked: a locked address is refused without one. */
  async login(body: LoginBody): Promise<Session> {
    const { throttle, db } = this.deps;
    const attempt = await throttle.admit(body.email);
    const { candidates, matching } = await this.checkPassword(body);
    const [match] = matching;
    if (!match) {
      throttle.failed(attempt);
      throw invalidCredentials();
    }
    if (candidates > 1) {
      await throttle.succeeded(db, body.email);
      // Only after a password matched: the organizations are named to someone who proved to belong to them.
      throw new AppError('VALIDATION_ERROR', 'This email belongs to several organizations: give tenantSlug', {
        fields: [{ path: 'tenantSlug', message: 'Required: the email is a member of several organizations' }],
        tenantSlugs: matching.map((candidate) => candidate.tenantSlug),
      });
    }
    return db.transaction(async (tx) => {
      await throttle.succeeded(tx, body.email);
      return this.issue(tx, match.member, body.environment, 'password');
    });
  }

  /** Possession of the token is the right to end it; a token that opens nothing answers the same. */
  async logout(token: string): Promise<{ revoked: true }> {
    if (!looksLikeSessionToken(token)) return { revoked: true };
    await this.deps.db.transaction(async (tx) => {
      const revoked = await revokeSessionByToken(tx, hashSessionToken(token));
      if (!revoked) return;
      await recordAuditEvents(tx, [
        {
          tenantId: revoked.tenantId,
          environment: null,
          action: 'session.revoked',
          actorType: 'team_member',
          actorId: revoked.memberId,
          targetType: 'session',
          targetId: revoked.id,
          metadata: { environment: revoked.environment, reason: 'logout' },
        },
      ]);
    });
    return { revoked: true };
  }

  /** For the gateway, on every request that carries a session: never cached, so revocations apply at once. */
  async authenticate(token: string): Promise<SessionPrincipal> {
    if (!looksLikeSessionToken(token)) throw invalidSession();
    const session = await findLiveSession(this.deps.db, hashSessionToken(token));
    if (!session) throw invalidSession();
    return {
      sessionId: session.id,
      tenantId: session.tenantId,
      environment: session.environment,
      memberId: session.memberId,
      orgRole: session.orgRole,
      scopes: scopesOfRole(session.orgRole),
      expiresAt: session.expiresAt.toISOString(),
    };
  }

  /** Revokes every open session of the member, in the caller's transaction; returns how many there were. */
  revokeAllOf(tx: Tx, memberId: string): Promise<number> {
    return revokeMemberSessions(tx, memberId);
  }

  /** The invited member sets its password and is logged in (live); the token works once. */
  async acceptInvite(body: AcceptInviteBody): Promise<Session> {
    const tokenHash = hashInviteToken(body.token);
    // Looked up before hashing, so a made-up token costs no password hash.
    const invited = await findOpenInvite(this.deps.db, tokenHash);
    if (!invited) throw invalidInvite();
    const passwordHash = await hashPassword(body.password);
    return this.deps.db.transaction(async (tx) => {
      const member = await acceptInvite(tx, invited.id, tokenHash, passwordHash);
      // Accepted by a concurrent request, expired or withdrawn meanwhile.
      if (!member) throw invalidInvite();
      await recordAuditEvents(tx, [
        {
          tenantId: member.tenantId,
          environment: null,
          action: 'team_member.invite_accepted',
          actorType: 'team_member',
          actorId: member.id,
          targetType: 'team_member',
          targetId: member.id,
          metadata: { orgRole: member.orgRole },
        },
      ]);
      return this.issue(tx, member, 'live', 'invite');
    });
  }

  /** How many members the address and slug name, and those whose password this is. */
  private async checkPassword(body: LoginBody): Promise<{ candidates: number; matching: LoginCandidate[] }> {
    const candidates = await findLoginCandidates(this.deps.db, body.email, body.tenantSlug);
    if (candidates.length === 0) {
      await verifyAgainstNothing(body.password);
      return { candidates: 0, matching: [] };
    }
    // In parallel: an address in several organizations takes about as long as one in a single one.
    const verified = await Promise.all(candidates.map((candidate) => verifyPassword(candidate.passwordHash, body.password)));
    return { candidates: candidates.length, matching: candidates.filter((_candidate, index) => verified[index]) };
  }

  private async issue(tx: Tx, member: TeamMember, environment: Environment, method: SessionMethod): Promise<Session> {
    const { token, tokenHash } = newSessionToken();
    const id = newSessionId();
    const { expiresAt } = await insertSession(tx, {
      id,
      tokenHash,
      tenantId: member.tenantId,
      memberId: member.id,
      environment,
      ttlSeconds: this.deps.ttlSeconds,
    });
    await recordAuditEvents(tx, [
      {
        tenantId: member.tenantId,
        environment: null,
        action: 'session.created',
        actorType: 'team_member',
        actorId: member.id,
        targetType: 'session',
        targetId: id,
        metadata: { environment, method },
      },
    ]);
    return { token, expiresAt: expiresAt.toISOString(), environment, member };
  }
}

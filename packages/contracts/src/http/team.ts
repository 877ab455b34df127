import { z } from 'zod';
import { environmentSchema, PAGE_LIMIT_MAX, pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { idSchema } from '../ids';
import type { RouteContract } from '../route-contract';
import { scopeSchema } from './api-keys';
import { orgRoleSchema, slugSchema, teamMemberSchema } from './identity';
import { plainTextSchema } from '../text';

export const MEMBER_STATUSES = ['invited', 'active', 'deactivated'] as const;
export const memberStatusSchema = z.enum(MEMBER_STATUSES);
export type MemberStatus = z.infer<typeof memberStatusSchema>;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

/** A password being set. Long passphrases are welcome; the ceiling keeps hashing cost bounded. */
export const newPasswordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);

export const createTeamMemberBodySchema = z.object({
  name: plainTextSchema(200),
  email: z.email().max(320),
  password: newPasswordSchema,
  orgRole: orgRoleSchema,
});
export type CreateTeamMemberBody = z.infer<typeof createTeamMemberBodySchema>;

/** An invited member sets its own password through the link, so the inviter never knows it. */
export const inviteTeamMemberBodySchema = createTeamMemberBodySchema.omit({ password: true });
export type InviteTeamMemberBody = z.infer<typeof inviteTeamMemberBodySchema>;

/**
 * An invited member and how its invite travels. `inviteUrl` is set only when no email went out
 * (no mail server configured, or it refused): the caller then hands the link over itself. It is
 * shown this once; only its hash is kept.
 */
export const teamInviteSchema = teamMemberSchema.extend({
  inviteEmailSent: z.boolean(),
  inviteUrl: z.url().nullable(),
  inviteExpiresAt: timestampSchema,
});
export type TeamInvite = z.infer<typeof teamInviteSchema>;

export const updateTeamMemberBodySchema = z
  .object({
    orgRole: orgRoleSchema.optional(),
    /** `active` on a member who never accepted the invite leaves it `invited`: it has no password to log in with. */
    status: z.enum(['active', 'deactivated']).optional(),
  })
  .refine((body) => body.orgRole !== undefined || body.status !== undefined, { message: 'Give orgRole, status or both' });
export type UpdateTeamMemberBody = z.infer<typeof updateTeamMemberBodySchema>;

export const teamMemberQuerySchema = pageQuerySchema.extend({
  orgRole: orgRoleSchema.optional(),
  status: memberStatusSchema.optional(),
});
export type TeamMemberQuery = z.infer<typeof teamMemberQuerySchema>;

export const loginBodySchema = z.object({
  email: plainTextSchema(320),
  // Not the new-password rules: a login only has to match what was set.
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  /** Needed only when the address is a member of several organizations. */
  tenantSlug: slugSchema.optional(),
  environment: environmentSchema.default('live'),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

/** Session tokens: `sess_` and 43 base64url characters (32 random bytes). */
export const sessionTokenSchema = z.string().min(1).max(256);

export const logoutBodySchema = z.object({ token: sessionTokenSchema });
export type LogoutBody = z.infer<typeof logoutBodySchema>;

export const logoutResultSchema = z.object({ revoked: z.literal(true) });

export const acceptInviteBodySchema = z.object({
  token: z.string().min(1).max(256),
  password: newPasswordSchema,
});
export type AcceptInviteBody = z.infer<typeof acceptInviteBodySchema>;

/** What a login or an accepted invite answers; the token is shown this once and never stored. */
export const sessionSchema = z.object({
  token: z.string(),
  expiresAt: timestampSchema,
  environment: environmentSchema,
  member: teamMemberSchema,
});
export type Session = z.infer<typeof sessionSchema>;

/** Internal: the gateway exchanges a bearer session token for this. */
export const sessionAuthenticateBodySchema = z.object({ token: sessionTokenSchema });

/** Internal: a live session, with the scopes its member's role grants right now. */
export const sessionPrincipalSchema = z.object({
  sessionId: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  memberId: z.string(),
  orgRole: orgRoleSchema,
  scopes: z.array(scopeSchema),
  expiresAt: timestampSchema,
});
export type SessionPrincipal = z.infer<typeof sessionPrincipalSchema>;

/** Internal: who a member is for maker-checker decisions (payments, treasury). */
export const memberPrincipalSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  orgRole: orgRoleSchema,
  status: memberStatusSchema,
  scopes: z.array(scopeSchema),
});
export type MemberPrincipal = z.infer<typeof memberPrincipalSchema>;

/** `ids`: comma-separated member ids (`usr_`), at most a page of them: the members a screen names. */
export const memberNamesQuerySchema = z.object({
  ids: z
    .string()
    .max(PAGE_LIMIT_MAX * 70)
    .transform((text) => text.split(','))
    .pipe(z.array(idSchema('user')).min(1).max(PAGE_LIMIT_MAX)),
});
export type MemberNamesQuery = z.infer<typeof memberNamesQuerySchema>;

/** A member as other records name it: who requested, decided, verified. No e-mail, role or status. */
export const memberNameSchema = z.object({ id: z.string(), name: z.string() });
export type MemberName = z.infer<typeof memberNameSchema>;
export const memberNamesSchema = z.object({ data: z.array(memberNameSchema) });

/** The team routes by name, with their precise schema types (for typed clients such as the dashboard); TEAM_ROUTES lists them. */
export const teamRoutes = {
  create: {
    method: 'post',
    path: '/v1/team',
    operationId: 'team.create',
    summary: 'Add an active team member with a password; only roles the caller covers',
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    body: createTeamMemberBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: teamMemberSchema },
    errors: ['SCOPE_ESCALATION', 'EMAIL_TAKEN'],
  },
  invite: {
    method: 'post',
    path: '/v1/team/invites',
    operationId: 'team.invite',
    summary:
      'Invite a member by email to set its own password; without a mail server (or when it fails) the answer holds the link, this once. Only roles the caller covers',
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    body: inviteTeamMemberBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: teamInviteSchema },
    errors: ['SCOPE_ESCALATION', 'EMAIL_TAKEN'],
  },
  resendInvite: {
    method: 'post',
    path: '/v1/team/{memberId}/invite',
    operationId: 'team.resendInvite',
    summary: 'Send a member who has not accepted yet a new invite; the earlier link stops working',
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    success: { status: 200, schema: teamInviteSchema },
    errors: ['SCOPE_ESCALATION', 'MEMBER_NOT_FOUND', 'MEMBER_NOT_INVITED'],
  },
  list: {
    method: 'get',
    path: '/v1/team',
    operationId: 'team.list',
    summary: 'List team members, newest first',
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    query: teamMemberQuerySchema,
    success: { status: 200, schema: pageSchema(teamMemberSchema) },
  },
  names: {
    method: 'get',
    path: '/v1/team/names',
    operationId: 'team.names',
    summary:
      "The names of the tenant's members among the ids asked (a screen's requesters, deciders, verifiers); an id of no member of the tenant is left out",
    surface: 'tenant',
    service: 'identity',
    scope: 'team:read',
    query: memberNamesQuerySchema,
    success: { status: 200, schema: memberNamesSchema },
  },
  get: {
    method: 'get',
    path: '/v1/team/{memberId}',
    operationId: 'team.get',
    summary: 'Get a team member',
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    success: { status: 200, schema: teamMemberSchema },
    errors: ['MEMBER_NOT_FOUND'],
  },
  update: {
    method: 'patch',
    path: '/v1/team/{memberId}',
    operationId: 'team.update',
    summary: "Change a member's role or deactivate / reactivate it; the last active org-admin stays",
    surface: 'tenant',
    service: 'identity',
    scope: 'team:manage',
    body: updateTeamMemberBodySchema,
    success: { status: 200, schema: teamMemberSchema },
    errors: ['SCOPE_ESCALATION', 'MEMBER_NOT_FOUND', 'LAST_ORG_ADMIN'],
  },
} as const satisfies Record<string, RouteContract>;

export const TEAM_ROUTES: RouteContract[] = Object.values(teamRoutes);

const LOGIN_SUMMARY = [
  'Dashboard login: a session token for one organization and environment.',
  '401 INVALID_CREDENTIALS alike for an unknown email and a wrong password;',
  '400 VALIDATION_ERROR asking for tenantSlug, only once the password matched, when the email is a member of several organizations;',
  '429 LOGIN_TEMPORARILY_LOCKED with Retry-After, without a password check and the right password included, once the email,',
  'member or not, failed 5 times in a row: for 1 minute, doubling with each further failure up to 30 minutes (the defaults)',
].join(' ');

export const AUTH_ROUTES: RouteContract[] = [
  {
    method: 'post',
    path: '/v1/auth/login',
    operationId: 'auth.login',
    summary: LOGIN_SUMMARY,
    surface: 'public',
    service: 'identity',
    body: loginBodySchema,
    success: { status: 200, schema: sessionSchema },
    errors: ['INVALID_CREDENTIALS', 'LOGIN_TEMPORARILY_LOCKED'],
  },
  {
    method: 'post',
    path: '/v1/auth/logout',
    operationId: 'auth.logout',
    summary: 'End the session of this token',
    surface: 'public',
    service: 'identity',
    body: logoutBodySchema,
    success: { status: 200, schema: logoutResultSchema },
  },
  {
    method: 'post',
    path: '/v1/auth/accept-invite',
    operationId: 'auth.acceptInvite',
    summary: 'Set the password of an invited member and log in (live environment)',
    surface: 'public',
    service: 'identity',
    body: acceptInviteBodySchema,
    success: { status: 200, schema: sessionSchema },
    errors: ['INVALID_INVITE_TOKEN'],
  },
];

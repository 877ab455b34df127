import { z } from 'zod';
import { boundedFiltersNote, instantInputSchema, pageQuerySchema, pageSchema } from '../common';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

/** Who did it: a team member (session, or a key's actor headers), an API key without an actor, or the platform operator. */
export const auditActorTypeSchema = z.string().min(1).max(64);

/** `<target>.<past-tense verb>`: api_key.created, team_member.role_changed, wallet.frozen, ... */
export const auditActionSchema = z.string().regex(/^[a-z_]+\.[a-z_]+$/);

export const auditEventSchema = z.object({
  id: z.string(),
  action: auditActionSchema,
  actorType: z.string(),
  actorId: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  /** What changed (`before` / `after` where it applies), the key behind an actor, the environment, the correlation id. */
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

export const auditEventQuerySchema = pageQuerySchema.extend({
  action: auditActionSchema.optional(),
  actorId: plainTextSchema(128, { trim: false }).optional(),
  targetType: z.string().min(1).max(64).optional(),
  targetId: plainTextSchema(128, { trim: false }).optional(),
  /** Inclusive lower and exclusive upper bound on createdAt. */
  from: instantInputSchema.optional(),
  to: instantInputSchema.optional(),
});
export type AuditEventQuery = z.infer<typeof auditEventQuerySchema>;

export const auditRoutes = {
  list: {
    method: 'get',
    path: '/v1/team/audit-events',
    operationId: 'auditEvents.list',
    summary: `Audit trail of key, team, session, approval, freeze and fee actions, newest first. ${boundedFiltersNote('on action, actorId, from and to (and the environment)')}`,
    surface: 'tenant',
    service: 'identity',
    scope: 'audit:read',
    query: auditEventQuerySchema,
    success: { status: 200, schema: pageSchema(auditEventSchema) },
  },
} as const satisfies Record<string, RouteContract>;

export const AUDIT_ROUTES: RouteContract[] = Object.values(auditRoutes);

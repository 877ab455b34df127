import {
  createTeamMemberBodySchema,
  inviteTeamMemberBodySchema,
  memberNamesQuerySchema,
  teamMemberQuerySchema,
  updateTeamMemberBodySchema,
} from '@wallet/contracts';
import { claimsOf, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { TeamService } from './team-service';

/**
 * The tenant's team (the gateway requires team:manage), members added with a password or
 * invited, and the member lookup other services make with a system token. Mount it after the
 * audit router: `/v1/team/:memberId` would otherwise answer for `/v1/team/audit-events`.
 */
export function teamRouter(team: TeamService, remember: RequestHandler, rememberSealed: RequestHandler): Router {
  const router = Router();

  // An Idempotency-Key makes a retried addition replay its first answer rather than meet 409 EMAIL_TAKEN.
  router.post('/v1/team', remember, async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    const body = parseOrThrow(createTeamMemberBodySchema, request.body);
    response.status(201).json(await team.create(claimsOf(response), tenantId, body));
  });

  // Remembered sealed: without a mail server the answer holds the invite's link, a secret shown once.
  router.post('/v1/team/invites', rememberSealed, async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    const body = parseOrThrow(inviteTeamMemberBodySchema, request.body);
    response.status(201).json(await team.invite(claimsOf(response), tenantId, body));
  });

  router.post('/v1/team/:memberId/invite', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    response.json(await team.resendInvite(claimsOf(response), tenantId, request.params.memberId));
  });

  router.get('/v1/team', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    const query = parseOrThrow(teamMemberQuerySchema, request.query, 'query');
    response.json(await team.list(tenantId, query));
  });

  // Before /v1/team/:memberId, which would take "names" for an id.
  router.get('/v1/team/names', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    const { ids } = parseOrThrow(memberNamesQuerySchema, request.query, 'query');
    response.json({ data: await team.names(tenantId, ids) });
  });

  router.get('/v1/team/:memberId', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    response.json(await team.get(tenantId, request.params.memberId));
  });

  router.patch('/v1/team/:memberId', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    const body = parseOrThrow(updateTeamMemberBodySchema, request.body);
    response.json(await team.update(claimsOf(response), tenantId, request.params.memberId, body));
  });

  router.get('/internal/v1/tenants/:tenantId/members/:memberId', async (request, response) => {
    requireSystem(response);
    response.json(await team.principal(request.params.tenantId, request.params.memberId));
  });

  return router;
}

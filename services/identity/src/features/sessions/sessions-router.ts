import { acceptInviteBodySchema, loginBodySchema, logoutBodySchema, sessionAuthenticateBodySchema } from '@wallet/contracts';
import { parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import type { SessionsService } from './sessions-service';

/** Dashboard login, logout and invite acceptance (public surface), and the gateway's session check (system). */
export function sessionsRouter(sessions: SessionsService): Router {
  const router = Router();

  router.post('/v1/auth/login', async (request, response) => {
    const body = parseOrThrow(loginBodySchema, request.body);
    response.json(await sessions.login(body));
  });

  router.post('/v1/auth/logout', async (request, response) => {
    const body = parseOrThrow(logoutBodySchema, request.body);
    response.json(await sessions.logout(body.token));
  });

  router.post('/v1/auth/accept-invite', async (request, response) => {
    const body = parseOrThrow(acceptInviteBodySchema, request.body);
    response.json(await sessions.acceptInvite(body));
  });

  router.post('/internal/v1/sessions/authenticate', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(sessionAuthenticateBodySchema, request.body);
    response.json(await sessions.authenticate(body.token));
  });

  return router;
}

import {
  createWebhookEndpointBodySchema,
  eventQuerySchema,
  eventRoutes,
  pageQuerySchema,
  replayWebhookBodySchema,
  rotateWebhookSecretBodySchema,
  updateWebhookEndpointBodySchema,
  webhookDeliveryQuerySchema,
  webhookEndpointRoutes as routes,
} from '@wallet/contracts';
import { AppError, type Db, mountRoute, parseOptionalBody, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { EndpointsService } from './endpoints-service';
import { findEventText, listEvents } from './events-store';

/**
 * The event log (`/v1/events`, events:read) and a tenant's webhook endpoints
 * (`/v1/developer/webhook-endpoints`, webhooks:manage), in the caller's environment. Events are
 * answered as the exact JSON their webhooks send. An Idempotency-Key on a creation or a rotation
 * replays the first answer, kept sealed (`rememberSealed`: it holds the secret shown once).
 */
export function webhooksRouter(db: Db, endpoints: EndpointsService, rememberSealed: RequestHandler): Router {
  const router = Router();

  mountRoute(router, eventRoutes.list, async (request, response) => {
    const page = await listEvents(db, tenantScopeOf(response), parseOrThrow(eventQuerySchema, request.query, 'query'));
    response.type('application/json').send(page.text);
  });
  mountRoute(router, eventRoutes.get, async (request, response) => {
    const text = await findEventText(db, tenantScopeOf(response), request.params.id);
    if (text === null) throw new AppError('EVENT_NOT_FOUND', 'No such event');
    response.type('application/json').send(text);
  });

  mountRoute(router, routes.list, async (request, response) => {
    response.json(await endpoints.list(tenantScopeOf(response), parseOrThrow(pageQuerySchema, request.query, 'query')));
  });
  mountRoute(router, routes.create, rememberSealed, async (request, response) => {
    const body = parseOrThrow(createWebhookEndpointBodySchema, request.body);
    response.status(201).json(await endpoints.create(tenantScopeOf(response), body));
  });
  mountRoute(router, routes.get, async (request, response) => {
    response.json(await endpoints.get(tenantScopeOf(response), request.params.id));
  });
  mountRoute(router, routes.update, async (request, response) => {
    const body = parseOrThrow(updateWebhookEndpointBodySchema, request.body);
    response.json(await endpoints.update(tenantScopeOf(response), request.params.id, body));
  });
  mountRoute(router, routes.delete, async (request, response) => {
    response.json(await endpoints.delete(tenantScopeOf(response), request.params.id));
  });
  mountRoute(router, routes.rotateSecret, rememberSealed, async (request, response) => {
    const body = parseOptionalBody(rotateWebhookSecretBodySchema, request.body);
    response.json(await endpoints.rotateSecret(tenantScopeOf(response), request.params.id, body));
  });
  mountRoute(router, routes.sendTest, async (request, response) => {
    response.status(202).json(await endpoints.sendTest(tenantScopeOf(response), request.params.id));
  });
  mountRoute(router, routes.deliveries, async (request, response) => {
    const query = parseOrThrow(webhookDeliveryQuerySchema, request.query, 'query');
    response.json(await endpoints.deliveries(tenantScopeOf(response), request.params.id, query));
  });
  mountRoute(router, routes.replay, async (request, response) => {
    const body = parseOrThrow(replayWebhookBodySchema, request.body);
    response.status(202).json(await endpoints.replay(tenantScopeOf(response), request.params.id, body));
  });

  return router;
}

import { deadLetterListQuerySchema, replayDeadLettersBodySchema } from '@wallet/contracts';
import { claimsOf, parseOptionalBody, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import type { DeadLettersService } from './dead-letters-service';

/** The platform operator's view of the dead-letter queues (`npm run ops -- dlq ...` calls these). */
export function deadLettersRouter(deadLetters: DeadLettersService): Router {
  const router = Router();

  router.get('/v1/system/dead-letters', async (request, response) => {
    requireSystem(response);
    response.json(await deadLetters.list(parseOrThrow(deadLetterListQuerySchema, request.query, 'query')));
  });

  router.post('/v1/system/dead-letters/replay', async (request, response) => {
    requireSystem(response);
    const body = parseOptionalBody(replayDeadLettersBodySchema, request.body);
    response.json(await deadLetters.replayMany(body, claimsOf(response)));
  });

  router.get('/v1/system/dead-letters/:id', async (request, response) => {
    requireSystem(response);
    response.json(await deadLetters.get(request.params.id));
  });

  router.post('/v1/system/dead-letters/:id/replay', async (request, response) => {
    requireSystem(response);
    response.json(await deadLetters.replay(request.params.id, claimsOf(response)));
  });

  router.post('/v1/system/dead-letters/:id/discard', async (request, response) => {
    requireSystem(response);
    response.json(await deadLetters.discard(request.params.id, claimsOf(response)));
  });

  return router;
}

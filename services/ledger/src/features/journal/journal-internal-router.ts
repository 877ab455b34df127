import {
  journalDigestsAfterBodySchema,
  journalEntryDigestBodySchema,
  journalEntryLookupBodySchema,
  journalReferencesAfterBodySchema,
} from '@wallet/contracts';
import { type Db, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import { digestEntries, digestsAfter } from './entry-digests';
import type { TenantScope } from './journal-scope';
import { findEntries, referencesAfter } from './journal-store';

function scopeOf(input: { tenantId?: string | undefined; environment?: 'test' | 'live' | undefined }): TenantScope | null {
  return input.tenantId !== undefined && input.environment !== undefined
    ? { tenantId: input.tenantId, environment: input.environment }
    : null;
}

/**
 * Journal reads for other services' reconciliation (payments compares its records with the
 * entries). Internal only: the gateway routes none of these, and they take a system token; the
 * scope travels explicitly, so one call can cover one tenant's environment or every tenant.
 */
export function journalInternalRouter(db: Db): Router {
  const router = Router();

  router.post('/internal/v1/journal/entries/lookup', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(journalEntryLookupBodySchema, request.body);
    response.json({ data: await findEntries(db, scopeOf(body), body.ids) });
  });

  router.post('/internal/v1/journal/references/after', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(journalReferencesAfterBodySchema, request.body);
    response.json(await referencesAfter(db, body));
  });

  router.post('/internal/v1/journal/entries/digest', async (request, response) => {
    requireSystem(response);
    response.json(await digestEntries(db, parseOrThrow(journalEntryDigestBodySchema, request.body)));
  });

  router.post('/internal/v1/journal/digests/after', async (request, response) => {
    requireSystem(response);
    response.json(await digestsAfter(db, parseOrThrow(journalDigestsAfterBodySchema, request.body)));
  });

  return router;
}

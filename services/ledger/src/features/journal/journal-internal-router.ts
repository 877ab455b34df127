import { environmentSchema, journalEntryLookupBodySchema, journalReferencesAfterBodySchema, journalReferenceQuerySchema, type JournalReference, type Page } from '@wallet/contracts';
import { cursorFields, type Db, decodeCursor, encodeCursor, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import { findEntries, listReferences, referencesAfter, type TenantScope } from './journal-store';

function scopeOf(input: { tenantId?: string | undefined; environment?: 'test' | 'live' | undefined }): TenantScope | null {
  return input.tenantId !== undefined && input.environment !== undefined ? { tenantId: input.tenantId, environment: input.environment } : null;
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

  router.get('/internal/v1/journal/references', async (request, response) => {
    requireSystem(response);
    const query = parseOrThrow(journalReferenceQuerySchema, request.query, 'query');
    const after = decodeCursor(query.cursor, { tenantId: cursorFields.key, environment: environmentSchema, seq: cursorFields.seq });
    const rows = await listReferences(db, scopeOf(query), { referenceType: query.referenceType, after: after ?? undefined, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const body: Page<JournalReference> = {
      data: page.map(({ position: _position, ...reference }) => reference),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ ...last.position }) : null,
    };
    response.json(body);
  });

  router.post('/internal/v1/journal/references/after', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(journalReferencesAfterBodySchema, request.body);
    response.json(await referencesAfter(db, body));
  });

  return router;
}

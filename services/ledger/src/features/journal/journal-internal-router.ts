import {
  journalDigestsAfterBodySchema,
  journalEntryDigestBodySchema,
  journalEntryLookupBodySchema,
  type JournalDigestsAfterBody,
  journalReferencesAfterBodySchema,
  type JournalReferencesAfterBody,
} from '@wallet/contracts';
import { AppError, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import { digestEntries, digestsAfter } from './entry-digests';
import type { LedgerShards } from '../partitions/ledger-shards';
import type { TenantScope } from './journal-scope';
import { findEntries, referencesAfter } from './journal-store';

function scopeOf(input: { tenantId?: string | undefined; environment?: 'test' | 'live' | undefined }): TenantScope | null {
  return input.tenantId !== undefined && input.environment !== undefined
    ? { tenantId: input.tenantId, environment: input.environment }
    : null;
}

/** The scopes of a request grouped by the shard holding each. */
async function byShard<Scope extends { tenantId: string }>(shards: LedgerShards, scopes: readonly Scope[]): Promise<Map<number, Scope[]>> {
  const shardOf = await shards.shardsOfTenants(scopes.map((scope) => scope.tenantId));
  const grouped = new Map<number, Scope[]>();
  for (const scope of scopes) {
    const shard = shardOf.get(scope.tenantId) ?? 0;
    const group = grouped.get(shard);
    if (group) group.push(scope);
    else grouped.set(shard, [scope]);
  }
  return grouped;
}

/**
 * Per scope, the entries naming a type after its seq, each scope asked of its shard. Each scope's
 * `scanned` row carries the snapshot of its shard's read, which its seqs are final against.
 */
async function referencesAfterOnShards(shards: LedgerShards, body: JournalReferencesAfterBody) {
  const grouped = [...(await byShard(shards, body.scopes)).entries()];
  const answers = await Promise.all(grouped.map(([shard, scopes]) => referencesAfter(shards.part(shard).db, { ...body, scopes })));
  const [first] = answers;
  if (!first) return referencesAfter(shards.home.db, body);
  return {
    data: answers.flatMap((answer) => answer.data),
    snapshot: first.snapshot,
    scanned: answers.flatMap((answer) => answer.scanned.map((scanned) => ({ ...scanned, snapshot: answer.snapshot }))),
  };
}

/** Digests after a seq: one scope's on its shard; every scope's only where seqs are one shard's. */
async function digestsAfterOnShards(shards: LedgerShards, body: JournalDigestsAfterBody) {
  const scope = scopeOf(body);
  if (scope) return digestsAfter(await shards.dbOfTenant(scope.tenantId), body);
  if (shards.count > 1) {
    throw new AppError(
      'VALIDATION_ERROR',
      'The ledger has several shards, each with its own seqs: ask for one scope (tenantId and environment)',
    );
  }
  return digestsAfter(shards.home.db, body);
}

/**
 * Journal reads for other services' reconciliation (payments compares its records with the
 * entries). Internal only: the gateway routes none of these, and they take a system token; the
 * scope travels explicitly, so one call can cover one tenant's environment or every tenant, each
 * read on the shard that holds it.
 */
export function journalInternalRouter(shards: LedgerShards): Router {
  const router = Router();

  router.post('/internal/v1/journal/entries/lookup', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(journalEntryLookupBodySchema, request.body);
    const scope = scopeOf(body);
    const found = scope
      ? await findEntries(await shards.dbOfTenant(scope.tenantId), scope, body.ids)
      : (await shards.each((db) => findEntries(db, null, body.ids))).flat();
    response.json({ data: found });
  });

  router.post('/internal/v1/journal/references/after', async (request, response) => {
    requireSystem(response);
    response.json(await referencesAfterOnShards(shards, parseOrThrow(journalReferencesAfterBodySchema, request.body)));
  });

  router.post('/internal/v1/journal/entries/digest', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(journalEntryDigestBodySchema, request.body);
    response.json(await digestEntries(await shards.dbOfTenant(body.named.tenantId), body));
  });

  router.post('/internal/v1/journal/digests/after', async (request, response) => {
    requireSystem(response);
    response.json(await digestsAfterOnShards(shards, parseOrThrow(journalDigestsAfterBodySchema, request.body)));
  });

  return router;
}

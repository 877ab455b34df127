import {
  journalQuerySchema,
  ledgerAccountQuerySchema,
  statementQuerySchema,
  type Page,
  type JournalEntry,
  type LedgerAccount,
  systemJournalQuerySchema,
  type SystemJournalQuery,
} from '@wallet/contracts';
import { AppError, cursorFields, type Db, decodeCursor, encodeCursor, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type Response, Router } from 'express';
import type { LedgerShards } from '../partitions/ledger-shards';
import { journalPageAcrossShards } from './journal-fan-out';
import { findWalletAccount, listAccounts, statementLines, statementSeqs } from '../accounts/account-reads';
import { type EntryListing, findEntry, findEntryAcrossTenants, listEntries, listEntriesAcrossTenants } from './journal-store';

const JOURNAL_CURSOR = { seq: cursorFields.seq };

/**
 * A page of entries from rows fetched one beyond the limit; the cursor is the last entry's
 * position, or where a short page's examination stopped.
 */
function journalPage(listing: EntryListing, limit: number): Page<JournalEntry> {
  const page = listing.entries.slice(0, limit);
  const last = page[page.length - 1];
  const nextSeq = listing.entries.length > limit && last ? last.seq : listing.continueBeforeSeq;
  return {
    data: page.map(({ seq: _seq, ...entry }) => entry),
    nextCursor: nextSeq === null ? null : encodeCursor({ seq: nextSeq }),
  };
}

function foundEntry(entry: JournalEntry | null): JournalEntry {
  if (!entry) throw new AppError('JOURNAL_ENTRY_NOT_FOUND', 'No such journal entry');
  return entry;
}

/** The operator's journal: one shard's along its seqs, as it always was; several shards' merged. */
async function systemJournalPage(shards: LedgerShards, query: SystemJournalQuery, examineMax: number): Promise<Page<JournalEntry>> {
  if (shards.count > 1) {
    return journalPageAcrossShards(shards, query, (db, beforeSeq) => listEntriesAcrossTenants(db, { ...query, beforeSeq, examineMax }));
  }
  const cursor = decodeCursor(query.cursor, JOURNAL_CURSOR);
  return journalPage(await listEntriesAcrossTenants(shards.home.db, { ...query, beforeSeq: cursor?.seq, examineMax }), query.limit);
}

/** Reads of the journal, balances and statements; inside the caller's tenant and environment (on its shard), except the operator's system routes. */
export function ledgerReadRouter(shards: LedgerShards, options: { journalExamineMax: number }): Router {
  const router = Router();
  const tenantDb = (response: Response): Promise<Db> => shards.dbOfTenant(tenantScopeOf(response).tenantId);

  router.get('/v1/journal', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(journalQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, JOURNAL_CURSOR);
    const db = await tenantDb(response);
    response.json(
      journalPage(await listEntries(db, scope, { ...query, beforeSeq: cursor?.seq, examineMax: options.journalExamineMax }), query.limit),
    );
  });

  router.get('/v1/journal/:id', async (request, response) => {
    response.json(foundEntry(await findEntry(await tenantDb(response), tenantScopeOf(response), request.params.id)));
  });

  // The platform operator's view: the same reads with the tenant scope lifted (filters may put it back).
  router.get('/v1/system/ledger/transactions', async (request, response) => {
    requireSystem(response);
    const query = parseOrThrow(systemJournalQuerySchema, request.query, 'query');
    response.json(await systemJournalPage(shards, query, options.journalExamineMax));
  });

  router.get('/v1/system/ledger/transactions/:journalEntryId', async (request, response) => {
    requireSystem(response);
    const found = await shards.each((db) => findEntryAcrossTenants(db, request.params.journalEntryId));
    response.json(foundEntry(found.find((entry) => entry !== null) ?? null));
  });

  router.get('/v1/ledger/accounts', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(ledgerAccountQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { id: cursorFields.key });
    const rows = await listAccounts(await tenantDb(response), scope, { ...query, beforeId: cursor?.id });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const body: Page<LedgerAccount> = { data: page, nextCursor: rows.length > query.limit && last ? encodeCursor({ id: last.id }) : null };
    response.json(body);
  });

  router.get('/v1/ledger/wallets/:walletId/entries', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(statementQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { seq: cursorFields.seq, lineNo: cursorFields.lineNo });
    const db = await tenantDb(response);
    const account = await findWalletAccount(db, scope, request.params.walletId);
    if (!account) throw new AppError('WALLET_NOT_FOUND', 'No such wallet');
    const seqs = await statementSeqs(db, account, query);
    const rows = seqs ? await statementLines(db, account, { before: cursor ?? undefined, limit: query.limit, seqs }) : [];
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    response.json({
      data: page.map(({ seq: _seq, lineNo: _lineNo, ...line }) => line),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq, lineNo: last.lineNo }) : null,
    });
  });

  return router;
}

import {
  journalQuerySchema,
  ledgerAccountQuerySchema,
  pageQuerySchema,
  type Page,
  type JournalEntry,
  type LedgerAccount,
  systemJournalQuerySchema,
} from '@wallet/contracts';
import { AppError, cursorFields, type Db, decodeCursor, encodeCursor, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import { findWalletAccount, listAccounts, statementLines } from '../accounts/account-reads';
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

/** Reads of the journal, balances and statements; inside the caller's tenant and environment, except the operator's system routes. */
export function ledgerReadRouter(db: Db, options: { journalExamineMax: number }): Router {
  const router = Router();

  router.get('/v1/journal', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(journalQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, JOURNAL_CURSOR);
    response.json(
      journalPage(await listEntries(db, scope, { ...query, beforeSeq: cursor?.seq, examineMax: options.journalExamineMax }), query.limit),
    );
  });

  router.get('/v1/journal/:id', async (request, response) => {
    response.json(foundEntry(await findEntry(db, tenantScopeOf(response), request.params.id)));
  });

  // The platform operator's view: the same reads with the tenant scope lifted (filters may put it back).
  router.get('/v1/system/ledger/transactions', async (request, response) => {
    requireSystem(response);
    const query = parseOrThrow(systemJournalQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, JOURNAL_CURSOR);
    response.json(
      journalPage(
        await listEntriesAcrossTenants(db, { ...query, beforeSeq: cursor?.seq, examineMax: options.journalExamineMax }),
        query.limit,
      ),
    );
  });

  router.get('/v1/system/ledger/transactions/:journalEntryId', async (request, response) => {
    requireSystem(response);
    response.json(foundEntry(await findEntryAcrossTenants(db, request.params.journalEntryId)));
  });

  router.get('/v1/ledger/accounts', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(ledgerAccountQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { id: cursorFields.key });
    const rows = await listAccounts(db, scope, { ...query, beforeId: cursor?.id });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const body: Page<LedgerAccount> = { data: page, nextCursor: rows.length > query.limit && last ? encodeCursor({ id: last.id }) : null };
    response.json(body);
  });

  router.get('/v1/ledger/wallets/:walletId/entries', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(pageQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { seq: cursorFields.seq, lineNo: cursorFields.lineNo });
    const account = await findWalletAccount(db, scope, request.params.walletId);
    if (!account) throw new AppError('WALLET_NOT_FOUND', 'No such wallet');
    const rows = await statementLines(db, account, { before: cursor ?? undefined, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    response.json({
      data: page.map(({ seq: _seq, lineNo: _lineNo, ...line }) => line),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq, lineNo: last.lineNo }) : null,
    });
  });

  return router;
}

import { journalQuerySchema, ledgerAccountQuerySchema, pageQuerySchema, type Page, type JournalEntry, type LedgerAccount } from '@wallet/contracts';
import { AppError, type Db, decodeCursor, encodeCursor, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import { z } from 'zod';
import { findWalletAccount, listAccounts, statementLines } from '../accounts/accounts-store';
import { reconcileLedger } from '../reconciliation/reconciliation-store';
import { findEntry, listEntries } from './journal-store';

/** Reads of the journal, balances and statements; always inside the caller's tenant and environment. */
export function ledgerReadRouter(db: Db): Router {
  const router = Router();

  router.get('/v1/journal', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(journalQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { seq: z.string().regex(/^\d+$/) });
    const rows = await listEntries(db, scope, { ...query, beforeSeq: cursor?.seq });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const body: Page<JournalEntry> = {
      data: page.map(({ seq: _seq, ...entry }) => entry),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null,
    };
    response.json(body);
  });

  router.get('/v1/journal/:id', async (request, response) => {
    const entry = await findEntry(db, tenantScopeOf(response), request.params.id);
    if (!entry) throw new AppError('JOURNAL_ENTRY_NOT_FOUND', 'No such journal entry');
    response.json(entry);
  });

  router.get('/v1/ledger/accounts', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(ledgerAccountQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { id: z.string().min(1) });
    const rows = await listAccounts(db, scope, { ...query, beforeId: cursor?.id });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const body: Page<LedgerAccount> = { data: page, nextCursor: rows.length > query.limit && last ? encodeCursor({ id: last.id }) : null };
    response.json(body);
  });

  router.get('/v1/ledger/wallets/:walletId/entries', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(pageQuerySchema, request.query, 'query');
    const cursor = decodeCursor(query.cursor, { seq: z.string().regex(/^\d+$/), lineNo: z.number().int().min(1) });
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

  router.get('/v1/ledger/reconciliation', async (_request, response) => {
    response.json(await reconcileLedger(db, tenantScopeOf(response)));
  });

  router.get('/v1/system/ledger/reconciliation', async (_request, response) => {
    requireSystem(response);
    response.json(await reconcileLedger(db, null));
  });

  return router;
}

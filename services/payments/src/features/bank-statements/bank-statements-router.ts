import { bankStatementCsvQuerySchema, bankStatementJsonBodySchema, statementLineQuerySchema } from '@wallet/contracts';
import { claimsOf, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { BankStatementsService, IncomingStatementLine } from './bank-statements-service';
import { statementLinesOfCsv } from './statement-csv';

/**
 * POST /v1/bank-statements: JSON `{bankCode, currencyCode, lines}` or `text/csv` with bankCode
 * and currencyCode in the query. An Idempotency-Key (`remember`) replays the first import's
 * answer rather than counting its lines again as duplicates. GET /v1/bank-statements/lines pages
 * through what was imported, the unmatched lines first among what a finance team looks for.
 */
export function bankStatementsRouter(statements: BankStatementsService, remember: RequestHandler): Router {
  const router = Router();

  router.post('/v1/bank-statements', remember, async (request, response) => {
    const scope = tenantScopeOf(response);
    const claims = claimsOf(response);
    if (typeof request.body === 'string') {
      // text/csv (the body middleware hands opted-in media types over as text).
      const bank = parseOrThrow(bankStatementCsvQuerySchema, request.query, 'query');
      const lines: IncomingStatementLine[] = statementLinesOfCsv(request.body);
      response.status(201).json(await statements.import(scope, claims, bank, lines));
      return;
    }
    const body = parseOrThrow(bankStatementJsonBodySchema, request.body);
    const lines: IncomingStatementLine[] = body.lines.map((line, index) => ({ line: index + 1, ...line }));
    response.status(201).json(await statements.import(scope, claims, { bankCode: body.bankCode, currencyCode: body.currencyCode }, lines));
  });

  router.get('/v1/bank-statements/lines', async (request, response) => {
    response.json(await statements.lines(tenantScopeOf(response), parseOrThrow(statementLineQuerySchema, request.query, 'query')));
  });

  return router;
}

import {
  type BankStatementImport,
  BANK_STATEMENT_LINES_MAX,
  checkAmount,
  newId,
  type Page,
  type StatementLineQuery,
  type StatementLineRecord,
  statementDateSchema,
} from '@wallet/contracts';
import { AppError, auditActorFieldsOf, type Db, type InternalClaims, pageBySeq } from '@wallet/kit';
import {
  finishImport,
  insertImport,
  insertStatementLines,
  listStatementLines,
  type NewStatementLine,
  type StatementScope,
  type StoredStatementLine,
} from './bank-statements-store';

/** A line as it came in (JSON or CSV), before it is checked. */
export interface IncomingStatementLine {
  /** The CSV line number, or the JSON index + 1. */
  line: number;
  date: string;
  reference: string;
  amount: string;
  description?: string | undefined;
}

function lineProblem(line: number, field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `statement line ${line}: ${field} ${message}`, {
    fields: [{ path: `lines.${line - 1}.${field}`, message, line }],
  });
}

function checkLine(incoming: IncomingStatementLine, currencyCode: string): NewStatementLine {
  if (!statementDateSchema.safeParse(incoming.date).success) throw lineProblem(incoming.line, 'date', 'must be a date as YYYY-MM-DD');
  const reference = incoming.reference.trim();
  if (reference.length < 1 || reference.length > 128) throw lineProblem(incoming.line, 'reference', 'must be 1-128 characters');
  const problem = checkAmount(incoming.amount, currencyCode);
  if (problem) {
    throw new AppError('INVALID_AMOUNT', `statement line ${incoming.line}: amount is not a valid ${currencyCode} amount (${problem})`, {
      field: `lines.${incoming.line - 1}.amount`,
      line: incoming.line,
      problem,
    });
  }
  const description = incoming.description?.trim();
  if (description !== undefined && description.length > 500)
    throw lineProblem(incoming.line, 'description', 'must be at most 500 characters');
  return { date: incoming.date, reference, amount: incoming.amount, description: description || null };
}

/** Bank statement imports: the lines bank slips are verified against. */
export class BankStatementsService {
  constructor(private readonly deps: { db: Db }) {}

  async import(
    scope: StatementScope,
    claims: InternalClaims,
    bank: { bankCode: string; currencyCode: string },
    incoming: IncomingStatementLine[],
  ): Promise<BankStatementImport> {
    if (incoming.length === 0)
      throw new AppError('VALIDATION_ERROR', 'The statement has no lines', {
        fields: [{ path: 'lines', message: 'must hold at least one line' }],
      });
    if (incoming.length > BANK_STATEMENT_LINES_MAX)
      throw new AppError('VALIDATION_ERROR', `A statement import holds at most ${BANK_STATEMENT_LINES_MAX} lines`, {
        fields: [{ path: 'lines', message: 'too many lines' }],
      });
    const lines = incoming.map((line) => checkLine(line, bank.currencyCode));
    const actor = auditActorFieldsOf(claims);
    const id = newId('bankStatementImport');
    return this.deps.db.transaction(async (tx) => {
      await insertImport(tx, scope, { id, ...bank, actorType: actor.actorType, actorId: actor.actorId });
      const imported = await insertStatementLines(tx, scope, id, bank, lines);
      const duplicates = lines.length - imported;
      const { createdAt } = await finishImport(tx, id, { imported, duplicates });
      return { id, bankCode: bank.bankCode, currencyCode: bank.currencyCode, imported, duplicates, createdAt: createdAt.toISOString() };
    });
  }

  /** The lines imported in the scope, newest first; `matched: false` the ones no slip has used. */
  lines(scope: StatementScope, query: StatementLineQuery): Promise<Page<StatementLineRecord>> {
    return pageBySeq(query, (beforeSeq) => listStatementLines(this.deps.db, scope, { ...query, beforeSeq }), withoutSeq);
  }
}

function withoutSeq({ seq: _seq, ...line }: StoredStatementLine): StatementLineRecord {
  return line;
}

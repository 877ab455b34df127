import BigNumber from 'bignumber.js';
import type { CreatedRange, Wallet } from '@wallet/contracts';
import type { StatementLine } from './csv';

/** What a printed statement holds: balances the ledger answered, and the lines between them, newest first as the API lists them. */
export interface StatementDocument {
  wallet: Pick<Wallet, 'id' | 'ownerType' | 'ownerId' | 'currencyCode'>;
  /** The lines' creation-time range; either end may be open. */
  period: CreatedRange;
  opening: string;
  closing: string;
  lines: readonly StatementLine[];
  generatedAt: string;
}

export interface StatementTotals {
  credits: string;
  debits: string;
  /** Opening plus credits minus debits: a statement whose lines and balances agree has it equal to its closing balance. */
  computedClosing: string;
}

const scaleOf = (amount: string): number => amount.split('.')[1]?.length ?? 0;

/** Exact sums of the lines, at the currency's scale as the opening balance writes it. */
export function statementTotals(opening: string, lines: readonly StatementLine[]): StatementTotals {
  const scale = scaleOf(opening);
  const sum = (direction: 'CR' | 'DR') =>
    lines.filter((line) => line.direction === direction).reduce((total, line) => total.plus(line.amount), new BigNumber(0));
  const credits = sum('CR');
  const debits = sum('DR');
  return {
    credits: credits.toFixed(scale),
    debits: debits.toFixed(scale),
    computedClosing: new BigNumber(opening).plus(credits).minus(debits).toFixed(scale),
  };
}

/** An amount with thousands separators and its own decimals, from its decimal string (never a float). */
function grouped(amount: string, currencyCode: string): string {
  return `${new BigNumber(amount).toFormat(scaleOf(amount))} ${currencyCode}`;
}

function periodText(period: CreatedRange): string {
  const from = period.createdFrom ?? 'the first line';
  const to = period.createdTo ? `before ${period.createdTo}` : 'now';
  return `From ${from} to ${to} (UTC)`;
}

/**
 * The statement as a PDF a wallet owner can be handed: who and which period, the opening and
 * closing balances the ledger answered, the lines oldest first with the balance after each, and
 * the totals. jsPDF loads only when a statement is printed, outside the app's initial code.
 */
export async function statementPdf(statement: StatementDocument): Promise<Blob> {
  const [{ jsPDF }, { autoTable }] = await Promise.all([import('jspdf'), import('jspdf-autotable')]);
  const { wallet } = statement;
  const money = (amount: string) => grouped(amount, wallet.currencyCode);
  const totals = statementTotals(statement.opening, statement.lines);
  const doc = new jsPDF({ unit: 'pt', format: 'a4' });
  doc.setProperties({ title: `Statement of wallet ${wallet.id}` });
  doc.setFontSize(16);
  doc.text('Wallet statement', 40, 50);
  doc.setFontSize(10);
  const facts = [
    `Wallet ${wallet.id}, ${wallet.ownerType} ${wallet.ownerId}, ${wallet.currencyCode}`,
    periodText(statement.period),
    `Opening balance ${money(statement.opening)}`,
    `Closing balance ${money(statement.closing)}`,
    `Credits ${money(totals.credits)}, debits ${money(totals.debits)}, ${statement.lines.length} lines`,
    `Generated ${statement.generatedAt}`,
  ];
  facts.forEach((fact, index) => doc.text(fact, 40, 74 + index * 14));
  autoTable(doc, {
    startY: 74 + facts.length * 14 + 8,
    head: [['Date (UTC)', 'Kind', 'Journal entry', 'In', 'Out', 'Balance after']],
    body: [...statement.lines]
      .reverse()
      .map((line) => [
        line.createdAt,
        line.kind,
        line.journalEntryId,
        line.direction === 'CR' ? money(line.amount) : '',
        line.direction === 'DR' ? money(line.amount) : '',
        money(line.balanceAfter),
      ]),
    styles: { fontSize: 7 },
    headStyles: { fillColor: [40, 40, 40] },
  });
  return doc.output('blob');
}

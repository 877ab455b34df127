import type { JournalKind, RouteContract } from '@wallet/contracts';
import { casePostings } from './maker-checker-flow';
import { type Approval, commandPostings, type MovementNames } from './money-command';
import type { RecordStep, RecordTable } from './money-command-statement';
import type { Postings, RecordPostings } from './postings/postings';
import type { LocalRecordSource } from './reconciliation/business-records';

/*
 * A service's money movements, listed once (its `src/movements.ts`): what the postings, its
 * reconciliation and test/movements.test.ts read of each, so that none of them spells a
 * movement again (docs/money-movements.md).
 */

/** A route a movement answers, as contracts' routes (and so the OpenAPI document) have it. */
export type MovementRoute = Pick<RouteContract, 'method' | 'path'>;

export interface Movement {
  /** Its records' type, as awaited records and spans name them. */
  type: string;
  /** The reference type its entries name (its records' type, but for a case type that says otherwise). */
  referenceType: string;
  table: string;
  /** Every journal kind its entries have. */
  kinds: readonly JournalKind[];
  approval: Approval;
  /** Its finisher and awaited records, from its declaration. */
  postings: RecordPostings;
  /** Its records for check 3 of reconciliation. */
  source: LocalRecordSource;
  /** The routes that move its money. */
  routes: readonly MovementRoute[];
}

/** What a list gives besides the declaration: the movement's records for reconciliation, and its routes. */
export interface MovementParts {
  source: LocalRecordSource;
  routes: readonly MovementRoute[];
}

/** A movement that posts at once: a money command's declaration and its names. */
export function commandMovement<Draft>(
  declaration: { recordType: string; approval: Approval; records: RecordTable<Draft>; step: RecordStep },
  names: MovementNames<JournalKind | Readonly<Record<string, JournalKind>>>,
  parts: MovementParts,
): Movement {
  if (declaration.recordType !== names.type) throw new Error(`${names.type} is declared with records of type ${declaration.recordType}`);
  return {
    type: names.type,
    referenceType: names.type,
    table: names.table,
    kinds: typeof names.kind === 'string' ? [names.kind] : Object.values(names.kind),
    approval: declaration.approval,
    postings: commandPostings(declaration),
    ...parts,
  };
}

/** A movement that waits for a checker: a maker-checker case type's declaration, whose approval is its case type. */
export function caseMovement<Draft, Stored extends { id: string }>(
  declaration: Parameters<typeof casePostings<Draft, Stored>>[0],
  parts: MovementParts,
): Movement {
  const { names } = declaration;
  return {
    type: names.type,
    referenceType: names.referenceType,
    table: names.table,
    kinds: Object.values(names.kinds),
    approval: { caseType: names.type },
    postings: casePostings(declaration),
    ...parts,
  };
}

/**
 * Hands the postings every listed movement's finisher and awaited records (before they start),
 * once each: two movements may not share a reference type, nor two a case type.
 */
export function registerMovements(postings: Pick<Postings, 'register' | 'awaits'>, movements: readonly Movement[]): void {
  const caseTypes = new Set<string>();
  for (const { approval, type } of movements) {
    if (approval === 'none') continue;
    if (caseTypes.has(approval.caseType)) throw new Error(`case type ${approval.caseType} is declared twice (${type})`);
    caseTypes.add(approval.caseType);
  }
  for (const movement of movements) {
    postings.register(movement.postings.referenceType, movement.postings.finisher, movement.postings.announcer);
    postings.awaits(movement.postings.awaited);
  }
}

/** The listed movements' records, as reconciliation's check 3 reads them. */
export function movementSources(movements: readonly Movement[]): LocalRecordSource[] {
  return movements.map((movement) => movement.source);
}

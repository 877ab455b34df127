import path from 'node:path';
import { buildOpenApiDocument, CASE_TYPE_NAMES, CASE_TYPES, JOURNAL_KINDS } from '@wallet/contracts';
import type { Movement } from '@wallet/money-commands';
import { PAYMENTS_MOVEMENTS } from '../services/payments/src/movements';
import { TREASURY_MOVEMENTS } from '../services/treasury/src/movements';
import { importGraph } from './import-graph';

/*
 * Every service's money movements, as its src/movements.ts lists them once
 * (docs/money-movements.md): each must have its reconciliation source, journal kinds contracts
 * know and routes the OpenAPI document has, and together they must declare exactly contracts'
 * case types; and main starts the features from the list, naming none of them. Pure: the lists,
 * contracts, the OpenAPI document and the import graph, no service started (test/service-skeletons.test.ts
 * starts each and calls its movements' routes).
 */

const SERVICES: ReadonlyArray<readonly [string, readonly Movement[]]> = [
  ['payments', PAYMENTS_MOVEMENTS],
  ['treasury', TREASURY_MOVEMENTS],
];

type Paths = Record<string, Record<string, unknown> | undefined>;
const PATHS = buildOpenApiDocument({ version: 'test' }).paths as Paths;
const KNOWN_KINDS: ReadonlySet<string> = new Set(JOURNAL_KINDS);

/** What a declared movement lacks, each as a sentence; none for a complete one. */
function problemsOf(movement: Movement, paths: Paths): string[] {
  const problems: string[] = [];
  const { source } = movement;
  if (source === undefined || source === null) problems.push('no reconciliation source');
  else if (source.referenceType !== movement.referenceType || source.table !== movement.table)
    problems.push(`its reconciliation source reads ${source.referenceType} in ${source.table}`);
  if (movement.kinds.length === 0) problems.push('no journal kind');
  for (const kind of movement.kinds) if (!KNOWN_KINDS.has(kind)) problems.push(`journal kind ${kind} is not in JOURNAL_KINDS`);
  if (movement.routes.length === 0) problems.push('no route');
  for (const route of movement.routes)
    if (paths[route.path]?.[route.method] === undefined)
      problems.push(`${route.method.toUpperCase()} ${route.path} is not in the OpenAPI document`);
  const { postings } = movement;
  if (postings.referenceType !== movement.referenceType || postings.awaited.recordType !== movement.type)
    problems.push(`its postings finish ${postings.referenceType} and await ${postings.awaited.recordType}`);
  if (movement.approval !== 'none') {
    const { caseType } = movement.approval;
    if (caseType !== movement.type) problems.push(`its records are not named by its case type ${caseType}`);
    const stepKinds = CASE_TYPES[caseType] ? Object.values(CASE_TYPES[caseType].kinds) : [];
    if (stepKinds.length === 0 || stepKinds.some((kind) => !movement.kinds.includes(kind)))
      problems.push(`its kinds lack those contracts name for case type ${caseType}`);
  }
  return problems;
}

const ALL = SERVICES.flatMap(([service, movements]) => movements.map((movement) => [service, movement] as const));

describe('the money movements every service declares', () => {
  it('lists some in each service', () => {
    for (const [, movements] of SERVICES) expect(movements.length).toBeGreaterThan(0);
  });

  it.each(ALL.map(([service, movement]) => [`${service} ${movement.type}`, movement] as const))(
    '%s: has its reconciliation source, its journal kinds and its OpenAPI routes',
    (_name, movement) => {
      expect(problemsOf(movement, PATHS)).toEqual([]);
    },
  );

  it('gives each reference type to one movement of one service', () => {
    const referenceTypes = ALL.map(([, movement]) => movement.referenceType);
    expect(new Set(referenceTypes).size).toBe(referenceTypes.length);
  });

  it("declares each of contracts' case types as exactly one movement's approval, and no other", () => {
    const declared = ALL.flatMap(([, movement]) => (movement.approval === 'none' ? [] : [movement.approval.caseType]));
    expect([...declared].sort()).toEqual([...CASE_TYPE_NAMES].sort());
  });
});

describe("the services' money features", () => {
  const graph = importGraph(path.resolve(__dirname, '..'));

  it.each(['payments', 'treasury'])("%s: main imports nothing from a listed feature's folder (it starts them from the list)", (service) => {
    const folderOf = (file: string) => /^services\/[\w-]+\/src\/features\/[\w-]+\//.exec(file)?.[0];
    const listed = new Set((graph.get(`services/${service}/src/movements.ts`) ?? []).flatMap((file) => folderOf(file) ?? []));
    expect(listed.size).toBeGreaterThan(0);
    expect((graph.get(`services/${service}/src/main.ts`) ?? []).filter((file) => listed.has(folderOf(file) ?? ''))).toEqual([]);
  });
});

describe('the checks, on a movement with a planted fault each', () => {
  const [transfer] = PAYMENTS_MOVEMENTS.filter((movement) => movement.type === 'transfer');
  const [payout] = PAYMENTS_MOVEMENTS.filter((movement) => movement.approval !== 'none');
  if (!transfer || !payout) throw new Error('payments lists transfers and a case type');

  it('finds a missing or mismatched reconciliation source', () => {
    expect(problemsOf({ ...transfer, source: undefined as unknown as Movement['source'] }, PATHS)).toEqual(['no reconciliation source']);
    expect(problemsOf({ ...transfer, source: payout.source }, PATHS)).toEqual([
      `its reconciliation source reads ${payout.referenceType} in ${payout.table}`,
    ]);
  });

  it('finds a journal kind contracts do not know, and a movement without one', () => {
    const kinds = ['transfer', 'transfer_fee'] as unknown as Movement['kinds'];
    expect(problemsOf({ ...transfer, kinds }, PATHS)).toEqual(['journal kind transfer_fee is not in JOURNAL_KINDS']);
    expect(problemsOf({ ...transfer, kinds: [] }, PATHS)).toEqual(['no journal kind']);
  });

  it('finds a route the OpenAPI document lacks', () => {
    const paths = { ...PATHS, '/v1/transfers': undefined };
    expect(problemsOf(transfer, paths)).toEqual(['POST /v1/transfers is not in the OpenAPI document']);
    expect(problemsOf({ ...transfer, routes: [{ method: 'post', path: '/v1/transfer' }] }, PATHS)).toEqual([
      'POST /v1/transfer is not in the OpenAPI document',
    ]);
  });

  it("finds a case type's movement without its steps' kinds", () => {
    expect(problemsOf({ ...payout, kinds: payout.kinds.filter((kind) => !kind.endsWith('_hold')) }, PATHS)).toEqual([
      `its kinds lack those contracts name for case type ${payout.type}`,
    ]);
  });
});

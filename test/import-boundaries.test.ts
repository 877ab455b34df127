import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  foreignConfigImports,
  foreignStoreImports,
  importCycles,
  importGraph,
  importsBetween,
  importsBeyond,
  migrationImports,
} from './import-graph';

const ROOT = path.resolve(__dirname, '..');

/**
 * The contracts' wire modules, the only ones the kit may import (each by its own path, never the
 * index, which is every module): how a value is written on the wire (errors and their body, ids,
 * lossless JSON, text, amounts and currencies, environments and pages), the broker's names and
 * the messages the kit itself writes or reads (audit records, tenant events, platform events), and the answers it
 * serves or reads (dead letters, a tenant). Not the chart of accounts, journal lines, fees,
 * scopes or any domain's routes: those are money-commands' and the services' to know.
 */
const WIRE_MODULES = [
  'common',
  'errors',
  'ids',
  'json',
  'zod-messages',
  'money',
  'text',
  'messages/topology',
  'messages/audit-record.v1',
  'messages/tenant-events.v1',
  'messages/platform-event.v1',
  'http/dead-letters',
  'http/identity',
].map((module) => `packages/contracts/src/${module}.ts`);

describe('import boundaries of packages/*/src and services/*/src', () => {
  const graph = importGraph(ROOT);

  it('reads the whole graph, @wallet/* imports resolved to their sources', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('services/payments/src/main.ts')).toEqual(
      expect.arrayContaining(['packages/kit/src/index.ts', 'packages/money-commands/src/index.ts']),
    );
  });

  it('has no import cycle between files', () => {
    expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it("has no feature importing another feature's store: the owner exposes what others need through a module of its own", () => {
    expect(foreignStoreImports(graph)).toEqual([]);
  });

  it('keeps kit plumbing: nothing in packages/kit/src imports @wallet/money-commands', () => {
    expect(importsBetween(graph, 'packages/kit/src', 'packages/money-commands/src')).toEqual([]);
  });

  it("has no feature taking configuration from another feature's shape: peers and their deadlines come from the service's own module", () => {
    expect(foreignConfigImports(ROOT)).toEqual([]);
  });

  it("keeps kit plumbing: packages/kit/src imports only the contracts' wire modules", () => {
    expect(importsBetween(graph, 'packages/kit/src', 'packages/contracts/src').length).toBeGreaterThan(5);
    expect(importsBeyond(graph, 'packages/kit/src', 'packages/contracts/src', WIRE_MODULES)).toEqual([]);
  });

  it('keeps migrations frozen: a migration imports only knex types, the list only its migrations and types', () => {
    expect(migrationImports(ROOT)).toEqual([]);
    expect(fs.readdirSync(path.join(ROOT, 'services/payments/migrations')).length).toBeGreaterThan(10);
  });
});

describe('the checks, on a repository with a planted violation of each', () => {
  let root: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-boundaries-'));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          baseUrl: '.',
          module: 'commonjs',
          moduleResolution: 'node',
          paths: {
            '@wallet/kit': ['packages/kit/src/index.ts'],
            '@wallet/money-commands': ['packages/money-commands/src/index.ts'],
            '@wallet/contracts': ['packages/contracts/src/index.ts'],
            '@wallet/contracts/*': ['packages/contracts/src/*'],
          },
        },
      }),
      'packages/kit/src/index.ts': "export * from './outbox';\n",
      // Type-only, as the outbox's import of the ledger commands' coalescing once was: a cycle all the same.
      'packages/kit/src/outbox.ts': "import type { Batch } from '@wallet/money-commands';\nexport const relay = (batch: Batch) => batch;\n",
      'packages/money-commands/src/index.ts':
        "import { relay } from '@wallet/kit';\nexport type Batch = string[];\nexport const send = relay;\n",
      'packages/contracts/src/index.ts': "export * from './errors';\nexport * from './chart-of-accounts';\n",
      'packages/contracts/src/errors.ts': "export type ErrorCode = 'NOT_FOUND';\n",
      'packages/contracts/src/chart-of-accounts.ts': "export const SUSPENSE = 'suspense';\n",
      'packages/kit/src/errors.ts':
        "import type { ErrorCode } from '@wallet/contracts/errors';\nexport const notFound: ErrorCode = 'NOT_FOUND';\n",
      'packages/kit/src/holds.ts':
        "import { SUSPENSE } from '@wallet/contracts/chart-of-accounts';\nexport const holdAccount = SUSPENSE;\n",
      'packages/kit/src/codes.ts': "export type { ErrorCode } from '@wallet/contracts';\n",
      'services/wallet/src/features/team/team-service.ts':
        "import { revoke } from '../sessions/sessions-store';\nexport const deactivate = revoke;\n",
      'services/wallet/src/features/sessions/sessions-store.ts': 'export function revoke(): void {}\n',
      'services/wallet/src/features/sessions/sessions-feature.ts':
        "import { z } from 'zod';\nexport const sessionsConfigShape = { IDENTITY_URL: z.string() };\n",
      'services/wallet/src/features/team/team-feature.ts':
        "import type { sessionsConfigShape } from '../sessions/sessions-feature';\nimport { peersConfigShape } from '../../peers';\nexport type TeamConfig = typeof sessionsConfigShape & typeof peersConfigShape;\n",
      'services/wallet/src/peers.ts': "import { z } from 'zod';\nexport const peersConfigShape = { LEDGER_URL: z.string() };\n",
      'services/wallet/src/features/sessions/sessions-service.ts':
        "import { revoke } from './sessions-store';\nexport const logout = revoke;\n",
      'services/wallet/src/features/sessions/member-sessions.ts': "export { revoke } from './sessions-store';\n",
      'services/wallet/src/features/audit/audit-service.ts':
        "import { revoke } from '../sessions/member-sessions';\nexport const audited = revoke;\n",
      'services/wallet/migrations/20270101120000_create_things.ts':
        "import type { Knex } from 'knex';\nimport { createOutboxTable } from '@wallet/kit';\nexport const up = (db: Knex) => createOutboxTable(db);\n",
      'services/wallet/migrations/20270102120000_more_things.ts':
        "import { type Knex } from 'knex';\nimport type { Db } from '@wallet/kit';\nexport const up = (db: Knex) => require('../src/tables').create(db as Db);\n",
      'services/wallet/migrations/20270103120000_plain_things.ts':
        "import type { Knex } from 'knex';\nexport const up = (db: Knex) => db.raw('CREATE TABLE things (id text)');\n",
      'services/wallet/migrations/index.ts':
        "import type { Migration } from '@wallet/kit';\nimport { things } from '../src/tables';\nimport * as plain from './20270103120000_plain_things';\nexport const migrations: Migration[] = [{ name: things, ...plain }];\n",
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
  });

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('finds the cycle through kit and money-commands, type-only link included', () => {
    const cycles = importCycles(importGraph(root));
    expect(cycles).toHaveLength(1);
    expect(new Set(cycles[0])).toEqual(
      new Set(['packages/kit/src/index.ts', 'packages/kit/src/outbox.ts', 'packages/money-commands/src/index.ts']),
    );
    expect(cycles[0]?.[0]).toBe(cycles[0]?.[cycles[0].length - 1]);
  });

  it("finds the feature importing another feature's store, and not a feature's own store or another's module", () => {
    expect(foreignStoreImports(importGraph(root))).toEqual([
      'services/wallet/src/features/team/team-service.ts -> services/wallet/src/features/sessions/sessions-store.ts',
    ]);
  });

  it('finds migrations importing live code, by value, by type from other than knex, or by require; and the list importing other than its migrations', () => {
    expect(migrationImports(root).sort()).toEqual([
      'services/wallet/migrations/20270101120000_create_things.ts -> @wallet/kit',
      'services/wallet/migrations/20270102120000_more_things.ts -> ../src/tables',
      'services/wallet/migrations/20270102120000_more_things.ts -> @wallet/kit',
      'services/wallet/migrations/index.ts -> ../src/tables',
    ]);
  });

  it("finds kit importing a contracts module that is not wire, or the contracts' index, and not a wire module", () => {
    expect(importsBeyond(importGraph(root), 'packages/kit/src', 'packages/contracts/src', ['packages/contracts/src/errors.ts'])).toEqual([
      'packages/kit/src/codes.ts -> packages/contracts/src/index.ts',
      'packages/kit/src/holds.ts -> packages/contracts/src/chart-of-accounts.ts',
    ]);
  });

  it("finds a feature taking another feature's config shape, and not the service's peers module", () => {
    expect(foreignConfigImports(root)).toEqual(['services/wallet/src/features/team/team-feature.ts -> sessionsConfigShape']);
  });

  it('finds kit importing money-commands', () => {
    expect(importsBetween(importGraph(root), 'packages/kit/src', 'packages/money-commands/src')).toEqual([
      'packages/kit/src/outbox.ts -> packages/money-commands/src/index.ts',
    ]);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { foreignStoreImports, importCycles, importGraph, importsBetween, migrationImports } from './import-graph';

const ROOT = path.resolve(__dirname, '..');

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
          paths: { '@wallet/kit': ['packages/kit/src/index.ts'], '@wallet/money-commands': ['packages/money-commands/src/index.ts'] },
        },
      }),
      'packages/kit/src/index.ts': "export * from './outbox';\n",
      // Type-only, as the outbox's import of the ledger commands' coalescing once was: a cycle all the same.
      'packages/kit/src/outbox.ts': "import type { Batch } from '@wallet/money-commands';\nexport const relay = (batch: Batch) => batch;\n",
      'packages/money-commands/src/index.ts':
        "import { relay } from '@wallet/kit';\nexport type Batch = string[];\nexport const send = relay;\n",
      'services/wallet/src/features/team/team-service.ts':
        "import { revoke } from '../sessions/sessions-store';\nexport const deactivate = revoke;\n",
      'services/wallet/src/features/sessions/sessions-store.ts': 'export function revoke(): void {}\n',
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

  it('finds kit importing money-commands', () => {
    expect(importsBetween(importGraph(root), 'packages/kit/src', 'packages/money-commands/src')).toEqual([
      'packages/kit/src/outbox.ts -> packages/money-commands/src/index.ts',
    ]);
  });
});

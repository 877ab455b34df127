import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every source file of packages/*\/src and services/*\/src (repository-relative), with the source files each one imports. */
export type ImportGraph = Map<string, string[]>;

function sourceFilesUnder(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFilesUnder(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * The import graph of a repository laid out as this one: relative imports and `@wallet/*` ones,
 * resolved as the compiler resolves them with the root tsconfig.json's paths. Type-only imports,
 * re-exports and dynamic imports count: each ties one file to another as much as a value import.
 */
export function importGraph(root: string): ImportGraph {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
  const files = ['packages', 'services'].flatMap((kind) => {
    const directory = path.join(root, kind);
    if (!fs.existsSync(directory)) return [];
    return fs.readdirSync(directory).flatMap((name) => sourceFilesUnder(path.join(directory, name, 'src')));
  });
  const known = new Set(files);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const imported = new Set<string>();
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith('.') && !specifier.startsWith('@wallet/')) continue;
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys, cache).resolvedModule;
      const target = resolved ? path.resolve(resolved.resolvedFileName) : undefined;
      if (target && known.has(target)) imported.add(path.relative(root, target));
    }
    graph.set(path.relative(root, file), [...imported].sort());
  }
  return graph;
}

/** Each group of files that import one another, round and round, as one cycle through them (its first file repeated at the end). */
export function importCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(next) as number));
      } else if (onStack.has(next)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(next) as number));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const group = new Set<string>();
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.add(member);
    } while (member !== file);
    const selfImport = (graph.get(file) ?? []).includes(file);
    if (group.size > 1 || selfImport) cycles.push(cycleThrough(graph, file, group));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** A path from `start` back to it within `group` (files that all reach one another). */
function cycleThrough(graph: ImportGraph, start: string, group: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const next of graph.get(file) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const route = [start];
        for (let step: string | undefined = file; step !== start && step !== undefined; step = cameFrom.get(step)) route.unshift(step);
        return [start, ...route];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

const FEATURE_FILE = /^services\/([^/]+)\/src\/features\/([^/]+)\//;
const FEATURE_STORE = /^services\/([^/]+)\/src\/features\/([^/]+)\/[^/]*-store\.ts$/;

/** Imports by a file of one feature of a store of another feature of the same service: `file -> store`. */
export function foreignStoreImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, imported] of graph) {
    const importer = FEATURE_FILE.exec(file);
    if (!importer) continue;
    for (const target of imported) {
      const store = FEATURE_STORE.exec(target);
      if (store && store[1] === importer[1] && store[2] !== importer[2]) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

/** Imports by files under `fromDirectory` of files under `ofDirectory` other than the `allowed` ones (repository-relative): `file -> imported`. */
export function importsBeyond(graph: ImportGraph, fromDirectory: string, ofDirectory: string, allowed: readonly string[]): string[] {
  return importsBetween(graph, fromDirectory, ofDirectory).filter((line) => !allowed.includes(line.split(' -> ')[1] as string));
}

/** Imports by files under `fromDirectory` of files under `ofDirectory`: `file -> imported`. */
export function importsBetween(graph: ImportGraph, fromDirectory: string, ofDirectory: string): string[] {
  const within = (file: string, directory: string) => file.startsWith(`${directory.replace(/\/+$/, '')}/`);
  return [...graph].flatMap(([file, imported]) =>
    within(file, fromDirectory) ? imported.filter((target) => within(target, ofDirectory)).map((target) => `${file} -> ${target}`) : [],
  );
}

/** Each module a file names (imports, re-exports, require, import()), and whether every mention of it is for types only. */
function moduleMentions(file: string): Array<{ specifier: string; typeOnly: boolean }> {
  const text = fs.readFileSync(file, 'utf8');
  const mentions = new Map<string, number>();
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) mentions.set(fileName, (mentions.get(fileName) ?? 0) + 1);
  const typeMentions = new Map<string, number>();
  for (const statement of ts.createSourceFile(file, text, ts.ScriptTarget.Latest).statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        ? (statement.moduleSpecifier as ts.StringLiteral).text
        : null;
    if (specifier !== null && isTypeOnly(statement)) typeMentions.set(specifier, (typeMentions.get(specifier) ?? 0) + 1);
  }
  return [...mentions].map(([specifier, count]) => ({ specifier, typeOnly: typeMentions.get(specifier) === count }));
}

/** `import type { A }`, `import { type A, type B }`, `export type { A } from`: gone once compiled. */
function isTypeOnly(statement: ts.Statement): boolean {
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  if (!ts.isImportDeclaration(statement)) return false;
  const clause = statement.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly);
}

/**
 * What services/*\/migrations import beyond what a frozen migration may: a migration, knex's types
 * only (its SQL is written out, so no library change can alter a migration that already ran); the
 * list (index.ts), its own migrations and types. `file -> module`.
 */
export function migrationImports(root: string): string[] {
  const services = path.join(root, 'services');
  if (!fs.existsSync(services)) return [];
  return fs.readdirSync(services).flatMap((service) =>
    sourceFilesUnder(path.join(services, service, 'migrations')).flatMap((file) => {
      const isList = path.basename(file) === 'index.ts';
      return moduleMentions(file)
        .filter(({ specifier, typeOnly }) => !(typeOnly ? isList || specifier === 'knex' : isList && /^\.\/[^/]+$/.test(specifier)))
        .map(({ specifier }) => `${path.relative(root, file)} -> ${specifier}`);
    }),
  );
}

/**
 * Configuration a feature takes from another feature's shape (`xConfigShape` imported from the
 * other's folder): a service's peers and the deadlines for them live in its own module
 * (src/peers.ts), which every feature takes them from. `file -> name`.
 */
export function foreignConfigImports(root: string): string[] {
  const services = path.join(root, 'services');
  if (!fs.existsSync(services)) return [];
  return fs.readdirSync(services).flatMap((service) =>
    sourceFilesUnder(path.join(services, service, 'src', 'features')).flatMap((file) => {
      const feature = FEATURE_FILE.exec(path.relative(root, file))?.[2];
      const text = fs.readFileSync(file, 'utf8');
      if (!text.includes('ConfigShape')) return [];
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
      return source.statements.flatMap((statement) => {
        if (!ts.isImportDeclaration(statement)) return [];
        const target = path.relative(root, path.resolve(path.dirname(file), (statement.moduleSpecifier as ts.StringLiteral).text));
        const owner = FEATURE_FILE.exec(`${target}/`)?.[2];
        const bindings = statement.importClause?.namedBindings;
        if (!owner || owner === feature || !bindings || !ts.isNamedImports(bindings)) return [];
        return bindings.elements
          .map((element) => (element.propertyName ?? element.name).text)
          .filter((name) => name.endsWith('ConfigShape'))
          .map((name) => `${path.relative(root, file)} -> ${name}`);
      });
    }),
  );
}

/**
 * `npm run build -w @wallet/sdk` (and `npm pack`, through prepack): the SDK as a package that
 * installs anywhere. dist/index.mjs (ESM) and dist/index.cjs (CommonJS), each one file with the
 * contracts it uses bundled in, since @wallet/contracts is not published; the npm dependencies
 * stay imports. dist/index.d.cts is one declaration bundle, contracts' types inlined, and
 * dist/index.d.mts re-exports it, so that TypeScript finds types beside each format's code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { type Plugin, rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';

const PACKAGE_ROOT = path.resolve(__dirname, '..');
const DIST = path.join(PACKAGE_ROOT, 'dist');
const ENTRY = path.join(PACKAGE_ROOT, 'src', 'index.ts');
const TSCONFIG = path.join(PACKAGE_ROOT, 'tsconfig.json');

interface PackageJson {
  version: string;
  dependencies: Record<string, string>;
}

/**
 * What stays an import of node_modules: the declared dependencies (and Node's own modules).
 * Refuses a package version that SDK_VERSION, sent in every User-Agent, does not repeat.
 */
async function externals(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as PackageJson;
  const client = await readFile(path.join(PACKAGE_ROOT, 'src', 'client.ts'), 'utf8');
  const version = /export const SDK_VERSION = '([^']+)'/.exec(client)?.[1];
  if (version !== manifest.version) throw new Error(`SDK_VERSION in src/client.ts is ${version}, package.json says ${manifest.version}`);
  return Object.keys(manifest.dependencies);
}

async function buildJavaScript(external: string[]): Promise<void> {
  await Promise.all(
    (['esm', 'cjs'] as const).map((format) =>
      build({
        entryPoints: [ENTRY],
        outfile: path.join(DIST, format === 'esm' ? 'index.mjs' : 'index.cjs'),
        bundle: true,
        platform: 'node',
        target: 'node20',
        format,
        tsconfig: TSCONFIG,
        external,
        logLevel: 'warning',
      }),
    ),
  );
}

/**
 * Declarations of the SDK and of the contracts it reaches, each file as tsc writes it, into
 * `staging`. Unchecked (noCheck): `npm run typecheck` checks the sources, and a full check here
 * would double the build's time.
 */
function emitDeclarations(staging: string): void {
  const parsed = ts.getParsedCommandLineOfConfigFile(TSCONFIG, undefined, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error(`cannot read ${TSCONFIG}`);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    noCheck: true,
    outDir: staging,
    rootDir: path.resolve(PACKAGE_ROOT, '..'),
    types: ['node'],
    // Only a check-time rule; without it the emit took about a tenth less time.
    isolatedModules: false,
  };
  const result = ts.createProgram([ENTRY], options).emit();
  const errors = result.diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0 || result.emitSkipped) {
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => PACKAGE_ROOT,
        getNewLine: () => '\n',
      }),
    );
  }
}

/**
 * tsc names a type by the file that declares it when it infers one (`lossless-json/lib/types/LosslessNumber`);
 * a package's `exports` may not let a consumer import that file, so such an import is taken from the package's root.
 */
function rootImportsOnly(external: string[]): Plugin {
  return {
    name: 'root-imports-only',
    resolveId(id) {
      const owner = external.find((name) => id.startsWith(`${name}/`));
      return owner === undefined || isExportedSubpath(owner, id) ? null : { id: owner, external: true };
    },
  };
}

/** Whether `id` is `name/...` and that package's `exports` lets it be imported. */
function isExportedSubpath(name: string, id: string): boolean {
  if (!id.startsWith(`${name}/`)) return false;
  return Object.keys(installedManifest(name).exports ?? {}).includes(`.${id.slice(name.length)}`);
}

/** A dependency's package.json as Node would find it from here (not every package exports its package.json). */
function installedManifest(name: string): { exports?: Record<string, unknown> } {
  for (let directory = PACKAGE_ROOT; ; directory = path.dirname(directory)) {
    const file = path.join(directory, 'node_modules', name, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { exports?: Record<string, unknown> };
    if (path.dirname(directory) === directory) throw new Error(`${name} is not installed`);
  }
}

async function buildDeclarations(external: string[]): Promise<void> {
  const staging = await mkdtemp(path.join(os.tmpdir(), 'wallet-sdk-declarations-'));
  try {
    emitDeclarations(staging);
    const bundle = await rollup({
      input: path.join(staging, 'sdk', 'src', 'index.d.ts'),
      // The dependencies' own types stay imports; the contracts' declarations are inlined.
      external: (id) => id.startsWith('node:') || external.some((name) => id === name || isExportedSubpath(name, id)),
      plugins: [
        rootImportsOnly(external),
        dts({ respectExternal: true, compilerOptions: { baseUrl: staging, paths: { '@wallet/contracts': ['contracts/src/index.d.ts'] } } }),
      ],
    });
    try {
      const { output } = await bundle.generate({ format: 'es' });
      const [chunk] = output;
      if (output.length !== 1 || chunk.type !== 'chunk') throw new Error('the declarations did not come out as one file');
      await writeFile(path.join(DIST, 'index.d.cts'), chunk.code);
      // The ESM types are the same declarations: one copy, so that a program loading both formats checks them once.
      await writeFile(path.join(DIST, 'index.d.mts'), "export * from './index.cjs';\n");
    } finally {
      await bundle.close();
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A workspace import left in the output would fail in a project that has only the tarball. */
async function assertSelfContained(): Promise<void> {
  for (const file of ['index.mjs', 'index.cjs', 'index.d.mts', 'index.d.cts']) {
    const text = await readFile(path.join(DIST, file), 'utf8');
    const workspaceImport = /(?:from\s*|require\(|import\()\s*["'](@wallet\/[^"']*)["']/.exec(text);
    if (workspaceImport) throw new Error(`dist/${file} still imports ${workspaceImport[1]}`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  const external = await externals();
  await Promise.all([buildJavaScript(external), buildDeclarations(external)]);
  await assertSelfContained();
  console.log(`built @wallet/sdk into ${path.relative(process.cwd(), DIST) || '.'} in ${Date.now() - started} ms`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});

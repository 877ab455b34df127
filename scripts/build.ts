/**
 * `npm run build`: each service as one JavaScript file, dist/<service>.js with its source map,
 * and the dashboard's web app with Vite into apps/dashboard/dist (only when its sources changed).
 * The workspace packages (contracts, kit, money-commands) are bundled in; npm dependencies stay
 * require()s of node_modules. `npm start` builds first and runs these files, and so does the Docker image.
 *
 * Why not run the TypeScript directly (tsx): its per-module output reads every imported
 * binding through a getter and wraps every named function and closure in a call that sets its
 * name, on every request's closures too; one bundle has neither, and loads without a loader
 * hook. Alternating the two, the services used about a seventh less CPU per transfer bundled.
 *
 *   npm run build               every service and the dashboard
 *   npm run build -- ledger     the services named (and `dashboard` for the web app)
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { dependencies, devDependencies } from '../package.json';

export const SERVICE_NAMES = ['gateway', 'identity', 'ledger', 'payments', 'treasury'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const ROOT = path.resolve(__dirname, '..');

/** Where a service's bundle is written. */
export function bundlePath(service: string): string {
  return path.join(ROOT, 'dist', `${service}.js`);
}

/**
 * The tracing preload every service runs with (`node --require dist/telemetry.js`): it must
 * patch http, express, pg and undici before a bundle requires them.
 */
/**
 * Node flags every service runs with. A request allocates a few hundred short-lived objects
 * (HTTP, JSON, promises, pg's arrays): with a 64 MiB young generation instead of 16 they die
 * before a scavenge sees them, which took 8-10 % off the CPU of a transfer end to end.
 * The Dockerfile sets the same through NODE_OPTIONS. Source maps make a service's stack traces
 * name its TypeScript files, not its bundle.
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64', '--enable-source-maps'];

export const TELEMETRY_PRELOAD = path.join(ROOT, 'dist', 'telemetry.js');

/** Bundles the services named (all by default) and the tracing preload; rejects with esbuild's errors when one does not build. */
export async function buildServices(services: readonly string[] = SERVICE_NAMES): Promise<void> {
  const unknown = services.filter((service) => !(SERVICE_NAMES as readonly string[]).includes(service));
  if (unknown.length > 0) throw new Error(`Unknown service ${unknown.join(', ')}: choose from ${SERVICE_NAMES.join(', ')}`);
  const bundles = [
    ...services.map((service) => ({ entry: path.join(ROOT, 'services', service, 'src', 'main.ts'), outfile: bundlePath(service) })),
    { entry: path.join(ROOT, 'packages', 'kit', 'src', 'telemetry-preload.ts'), outfile: TELEMETRY_PRELOAD },
  ];
  await Promise.all(
    bundles.map((bundle) =>
      build({
        entryPoints: [bundle.entry],
        outfile: bundle.outfile,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        // npm packages load from node_modules as they are (their own files, native bindings).
        external: [...Object.keys(dependencies), ...Object.keys(devDependencies)],
        sourcemap: true,
        logLevel: 'warning',
        write: false,
      }).then((result) => Promise.all(result.outputFiles.map((file) => replaceFile(file.path, file.contents)))),
    ),
  );
}

/**
 * Writes a file whole or not at all (a temporary file renamed over it): several systems start at
 * once in the tests, each rebuilding the bundles, and a service starting from a bundle caught
 * half-written ran nothing and exited.
 */
async function replaceFile(file: string, contents: Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}

export const DASHBOARD_ROOT = path.join(ROOT, 'apps', 'dashboard');
/** What the gateway's dashboard listener serves. */
export const DASHBOARD_DIST = path.join(DASHBOARD_ROOT, 'dist');
/** The hash of the sources the build in DASHBOARD_DIST was made from. */
export const DASHBOARD_STAMP = path.join(DASHBOARD_DIST, '.sources-sha256');

/** Files under `directory`, skipping build output, installed packages and tests. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/[\\/](dist|node_modules|test)[\\/]/.test(path.relative(ROOT, file)));
}

/**
 * A hash of everything the dashboard's bundle is made from: the app's sources and config, the
 * contracts it imports, and the locked dependency versions. The services are rebuilt on every
 * build (esbuild takes a second); a Vite build of the app takes several on this machine, so it is
 * skipped when this hash matches the one of the build in dist.
 */
export function dashboardSourcesHash(): string {
  const files = [
    ...filesUnder(DASHBOARD_ROOT),
    ...filesUnder(path.join(ROOT, 'packages', 'contracts', 'src')),
    path.join(ROOT, 'package-lock.json'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${path.relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

function runVite(): Promise<void> {
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  return new Promise((resolve, reject) => {
    // NODE_ENV is production whoever runs the build: under jest (NODE_ENV=test) Vite would otherwise bundle React's development build.
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
      cwd: DASHBOARD_ROOT,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the dashboard's Vite build exited with ${code}`))));
  });
}

/** Builds the dashboard into apps/dashboard/dist unless that build is of the same sources already. */
export async function buildDashboard(options: { force?: boolean } = {}): Promise<'built' | 'up to date'> {
  const hash = dashboardSourcesHash();
  const built =
    existsSync(DASHBOARD_STAMP) && existsSync(path.join(DASHBOARD_DIST, 'index.html')) ? readFileSync(DASHBOARD_STAMP, 'utf8') : null;
  if (!options.force && built === hash) return 'up to date';
  await runVite();
  writeFileSync(DASHBOARD_STAMP, hash);
  return 'built';
}

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

/** Vite's manifest of the built dashboard: each chunk by its source key. */
export function dashboardManifest(): Record<string, ManifestChunk> {
  return JSON.parse(readFileSync(path.join(DASHBOARD_DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
}

/** The JavaScript a first visit loads before anything else: the entry's chunk and its static imports, each gzipped. */
export function dashboardInitialJavaScript(manifest = dashboardManifest()): Array<{ file: string; gzipBytes: number }> {
  const entry = Object.entries(manifest).find(([, chunk]) => chunk.isEntry);
  if (!entry) throw new Error('the manifest names no entry');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  visit(entry[0]);
  return [...seen].map((key) => {
    const file = (manifest[key] as ManifestChunk).file;
    return { file, gzipBytes: gzipSync(readFileSync(path.join(DASHBOARD_DIST, file))).length };
  });
}

async function main(targets: readonly string[]): Promise<void> {
  const services = targets.length === 0 ? SERVICE_NAMES : targets.filter((target) => target !== 'dashboard');
  if (services.length > 0) {
    await buildServices(services);
    console.log(`built ${services.join(', ')} into dist/`);
  }
  if (targets.length === 0 || targets.includes('dashboard')) {
    const outcome = await buildDashboard();
    console.log(
      outcome === 'built' ? 'built the dashboard into apps/dashboard/dist/' : 'the dashboard in apps/dashboard/dist/ is up to date',
    );
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}

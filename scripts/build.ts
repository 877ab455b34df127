/**
 * `npm run build`: each service as one JavaScript file, dist/<service>.js with its source map.
 * The workspace packages (contracts, kit, money-commands) are bundled in; npm dependencies stay
 * require()s of node_modules. `npm start` builds first and runs these files, and so does the Docker image.
 *
 * Why not run the TypeScript directly (tsx): its per-module output reads every imported
 * binding through a getter and wraps every named function and closure in a call that sets its
 * name, on every request's closures too; one bundle has neither, and loads without a loader
 * hook. Alternating the two, the services used about a seventh less CPU per transfer bundled.
 *
 *   npm run build               every service
 *   npm run build -- ledger     the services named
 */
import path from 'node:path';
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
      }),
    ),
  );
}

if (require.main === module) {
  buildServices(process.argv.length > 2 ? process.argv.slice(2) : SERVICE_NAMES).then(
    () => console.log(`built ${process.argv.length > 2 ? process.argv.slice(2).join(', ') : SERVICE_NAMES.join(', ')} into dist/`),
    (error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    },
  );
}

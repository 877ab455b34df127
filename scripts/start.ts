import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '../packages/kit/src/config';
import { buildDashboard, bundlePath, buildServices, SERVICE_NODE_FLAGS, TELEMETRY_PRELOAD } from './build';
import { DEV_SECRETS_FILE, type DevSecrets, devSecrets } from './dev-secrets';
import { portOf, processEnv, SERVICES, type ServiceSpec, serviceOf, urlVariableOf } from './lib/service-processes';
import { preflight } from './preflight';

/**
 * `npm start`: the whole system as local processes against the PostgreSQL and RabbitMQ at
 * DATABASE_URL / AMQP_URL. Each service creates its database and migrates it at start, so
 * this script only checks the servers, fills in development secrets, builds the services
 * (scripts/build.ts), starts the five, and identity's webhook delivery as a sixth process at a
 * lower CPU priority (`webhooks`), and watches them: one dying stops the rest, Ctrl-C stops all.
 *
 * `npm start -- ledger payments` starts only the services named.
 */

const ROOT = path.resolve(__dirname, '..');
const HEALTH_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

const COLORS = [36, 35, 33, 32, 34];
const useColor = process.stdout.isTTY === true;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function dashboardUrl(env: NodeJS.ProcessEnv): string {
  return `http://127.0.0.1:${Number(env.DASHBOARD_PORT ?? 8082)}`;
}

function selectedServices(names: string[]): readonly ServiceSpec[] {
  if (names.length === 0) return SERVICES;
  const unknown = names.filter((name) => !SERVICES.some((spec) => spec.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown service ${unknown.join(', ')}: choose from ${SERVICES.map((spec) => spec.name).join(', ')}`);
    process.exit(1);
  }
  return SERVICES.filter((spec) => names.includes(spec.name));
}

/** Fills in what is unset; says which secrets are development ones, since they are not for production. */
function environment(): { env: NodeJS.ProcessEnv; developmentSecrets: Array<keyof DevSecrets> } {
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    AMQP_URL: process.env.AMQP_URL ?? DEFAULT_AMQP_URL,
  };
  const missing = (['SYSTEM_API_KEY', 'INTERNAL_TOKEN_SECRET', 'SECRETS_ENCRYPTION_KEY'] as const).filter((name) => !env[name]);
  if (missing.length > 0) {
    const { secrets, made } = devSecrets();
    for (const name of missing) env[name] = secrets[name];
    say(
      `Development secrets ${missing.join(', ')} ${made ? 'generated into' : 'read from'} ${path.relative(ROOT, DEV_SECRETS_FILE)}; set them for anything but development.`,
    );
  }
  // The gateway reaches each service where this script starts it.
  for (const spec of SERVICES) {
    const variable = urlVariableOf(spec);
    if (variable) env[variable] ??= `http://127.0.0.1:${portOf(spec, env)}`;
  }
  // Treasury's analytics ask the gateway's admin listener for request-log summaries.
  env.GATEWAY_INTERNAL_URL ??= `http://127.0.0.1:${Number(env.ADMIN_PORT ?? 8081)}`;
  // Invite e-mails link to the dashboard's accept-invite page.
  env.DASHBOARD_URL ??= dashboardUrl(env);
  return { env, developmentSecrets: missing };
}

function pipeWithPrefix(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream): void {
  createInterface({ input: stream }).on('line', (line) => out.write(`${prefix} ${line}\n`));
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

async function waitUntilHealthy(name: string, url: string): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (!(await healthy(url))) {
    if (Date.now() > deadline) throw new Error(`${name} did not answer ${url} within ${HEALTH_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main(): Promise<void> {
  const services = selectedServices(process.argv.slice(2));
  const problem = await preflight(process.env);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }

  const absent = services.filter((spec) => !existsSync(path.join(ROOT, 'services', serviceOf(spec), 'src', 'main.ts')));
  if (absent.length > 0) {
    console.error(
      `${absent.map((spec) => `services/${serviceOf(spec)}/src/main.ts`).join(', ')} not found: start the others with "npm start -- <service> ..."`,
    );
    process.exit(1);
  }

  const { env, developmentSecrets } = environment();
  // The services run from their bundles (scripts/build.ts), rebuilt from the source every start.
  try {
    await buildServices([...new Set(services.map(serviceOf))]);
  } catch (error) {
    console.error(`The services did not build: ${(error as Error).message}`);
    process.exit(1);
  }
  // The gateway serves the dashboard: built when its sources changed since the build in apps/dashboard/dist.
  if (services.some((spec) => spec.name === 'gateway')) {
    try {
      if ((await buildDashboard()) === 'built') say('Built the dashboard into apps/dashboard/dist.');
    } catch (error) {
      console.error(
        `The dashboard did not build (${(error as Error).message}); the API runs, the dashboard's address answers 503 until \`npm run build\` succeeds.`,
      );
    }
  }

  const children = new Map<string, ChildProcess>();
  let stopping = false;

  const stopAll = async (exitCode: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const running = [...children.values()].filter((child) => child.exitCode === null && child.signalCode === null);
    const exited = running.map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())));
    for (const child of running) child.kill('SIGTERM');
    const timer = setTimeout(() => running.forEach((child) => child.kill('SIGKILL')), STOP_TIMEOUT_MS);
    await Promise.all(exited);
    clearTimeout(timer);
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  const width = Math.max(...services.map((spec) => spec.name.length));
  services.forEach((spec, index) => {
    const label = spec.name.padEnd(width);
    const prefix = useColor ? `\u001b[${COLORS[index % COLORS.length]}m${label} |\u001b[0m` : `${label} |`;
    // WALLET_NODE_ARGS: extra node flags for every service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a benchmark).
    const nodeArgs = [...SERVICE_NODE_FLAGS, ...(env.WALLET_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    // An instance of another service names itself after its bundle, so `ps` and the benchmarks tell the two apart.
    const instance = spec.instanceOf ? [`--instance=${spec.name}`] : [];
    const child = spawn(process.execPath, [...nodeArgs, '--require', TELEMETRY_PRELOAD, bundlePath(serviceOf(spec)), ...instance], {
      cwd: ROOT,
      env: processEnv(spec, services, env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (spec.niceness !== undefined && child.pid !== undefined) setPriority(child.pid, spec.niceness);
    children.set(spec.name, child);
    if (child.stdout) pipeWithPrefix(child.stdout, prefix, process.stdout);
    if (child.stderr) pipeWithPrefix(child.stderr, prefix, process.stderr);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // Ctrl-C reaches the children too, sometimes before this process's own SIGINT handler runs.
      if (signal === 'SIGINT') return void stopAll(0);
      console.error(`${spec.name} exited (${signal ?? `code ${code}`}); stopping the others`);
      void stopAll(1);
    });
  });

  try {
    await Promise.all(services.map((spec) => waitUntilHealthy(spec.name, `http://127.0.0.1:${portOf(spec, env)}/healthz`)));
  } catch (error) {
    console.error((error as Error).message);
    await stopAll(1);
    return;
  }
  if (stopping) return;

  say('');
  say('Wallet platform is running:');
  for (const spec of services) {
    const base = `http://127.0.0.1:${portOf(spec, env)}`;
    if (spec.name === 'gateway') {
      say(`  API       ${base}`);
      say(`  Admin     http://127.0.0.1:${Number(env.ADMIN_PORT ?? 8081)}`);
      say(`  API docs  ${base}/docs`);
      say(`  Dashboard ${dashboardUrl(env)}`);
    } else {
      say(`  ${spec.name.padEnd(9)} ${base} (internal)`);
    }
  }
  if (developmentSecrets.includes('SYSTEM_API_KEY'))
    say(`  System key (generated development key, send as X-System-Key): ${env.SYSTEM_API_KEY}`);
  say('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

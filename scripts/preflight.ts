import { readdirSync } from 'node:fs';
import amqp from 'amqplib';
import pg from 'pg';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '../packages/kit/src/config';

/**
 * Checks that PostgreSQL and RabbitMQ accept a real connection (not just an open port), so
 * `npm start` fails in one readable line instead of five services failing in fifty.
 */

const CONNECT_TIMEOUT_MS = 3000;

/** The URL as it may be printed: a password never reaches the terminal or a log. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function reasonOf(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : (String(message ?? error).split('\n')[0] ?? 'unknown error');
}

/** A socket-level failure (nothing answered) as opposed to a server that answered and said no. */
function isNetworkError(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && code.startsWith('E')) || /timeout|timed out|terminated unexpectedly|closed abruptly/i.test(String(message))
  );
}

/** The local cluster's version (Debian layout) for the hint, when there is one. */
function localPostgresVersion(): string {
  try {
    return readdirSync('/etc/postgresql').sort().at(-1) ?? '<version>';
  } catch {
    return '<version>';
  }
}

async function checkPostgres(url: string): Promise<string | null> {
  // Services take only the server from DATABASE_URL and create their databases through the
  // `postgres` database (ensureDatabase), so that is what has to answer.
  if (!URL.canParse(url)) return 'DATABASE_URL is not a valid URL';
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection that fails after connecting emits 'error'; without a listener it would crash us.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    // The server answered (with a SQLSTATE): wrong role, password or database, not a stopped server.
    if (!isNetworkError(error))
      return `PostgreSQL at ${printableUrl(url)} refused the connection: ${(error as Error).message}; check DATABASE_URL`;
    return (
      `PostgreSQL is not reachable at ${printableUrl(url)} (${reasonOf(error)}): start it ` +
      `(e.g. "pg_ctlcluster ${localPostgresVersion()} main start" or "docker compose up -d postgres") or set DATABASE_URL`
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkRabbitMq(url: string): Promise<string | null> {
  if (!URL.canParse(url)) return 'AMQP_URL is not a valid URL';
  try {
    const connection = await amqp.connect(url, { timeout: CONNECT_TIMEOUT_MS });
    await connection.close();
    return null;
  } catch (error) {
    if (!isNetworkError(error)) return `RabbitMQ at ${printableUrl(url)} refused the connection: ${reasonOf(error)}; check AMQP_URL`;
    return (
      `RabbitMQ is not reachable at ${printableUrl(url)} (${reasonOf(error)}): start it ` +
      `(e.g. "rabbitmq-server -detached" or "docker compose up -d rabbitmq") or set AMQP_URL`
    );
  }
}

/** The first problem found, as one line, or null when both servers answer. */
export async function preflight(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const [postgres, rabbitMq] = await Promise.all([
    checkPostgres(env.DATABASE_URL ?? DEFAULT_DATABASE_URL),
    checkRabbitMq(env.AMQP_URL ?? DEFAULT_AMQP_URL),
  ]);
  return postgres ?? rabbitMq;
}

if (require.main === module) {
  preflight()
    .then((problem) => {
      if (problem) {
        console.error(problem);
        process.exit(1);
      }
      console.log('PostgreSQL and RabbitMQ are reachable');
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

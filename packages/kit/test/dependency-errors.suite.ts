import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import {
  AppError,
  Broker,
  closeServer,
  correlationMiddleware,
  createDb,
  createLogger,
  type Db,
  DependencyUnavailableError,
  errorMiddleware,
  isDependencyUnavailable,
  isTransientFailure,
  listen,
  unavailableDependencyOf,
} from '@wallet/kit';
import { createTestDatabase, startTcpProxy, type TcpProxy, waitFor } from '@wallet/kit/testing';

const logger = createLogger({ service: 'kit-dependency-tests', level: 'silent' });

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('what counts as a dependency being unavailable', () => {
  const sqlState = fc.stringMatching(/^[0-9A-Z]{5}$/);
  const connectionClass = (code: string) => code.startsWith('08') || ['57P01', '57P02', '57P03', '57P05', '53300', '25006'].includes(code);

  it('a SQLSTATE of the connection class, the server shutting down or starting, or a write on a standby, and no other', () => {
    fc.assert(
      fc.property(
        fc.oneof(sqlState, fc.constantFrom('08006', '08001', '57P01', '57P03', '25006', '23505', '40001', '22021', '42P01')),
        (code) => {
          expect(isDependencyUnavailable(withCode('server said so', code))).toBe(connectionClass(code));
          // Serialization failures and deadlocks are transient for a consumer, though no outage.
          expect(isTransientFailure(withCode('server said so', code))).toBe(connectionClass(code) || code === '40001' || code === '40P01');
        },
      ),
    );
  });

  it("node-postgres' connection-lost messages, also behind knex's statement prefix and inside causes, and never another message", () => {
    const lost = fc.constantFrom(
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'Connection terminated due to connection timeout',
    );
    const wrap = (error: Error, depth: number, aggregate: boolean): Error => {
      let wrapped = error;
      for (let level = 0; level < depth; level += 1)
        wrapped = aggregate ? new AggregateError([wrapped], 'several') : new Error('wrapper', { cause: wrapped });
      return wrapped;
    };
    fc.assert(
      fc.property(lost, fc.string(), fc.integer({ min: 0, max: 4 }), fc.boolean(), (phrase, statement, depth, aggregate) => {
        expect(unavailableDependencyOf(wrap(new Error(`${statement} - ${phrase}`), depth, aggregate))).toBe('database');
        expect(unavailableDependencyOf(wrap(new Error(phrase), depth, aggregate))).toBe('database');
      }),
    );
    // A message that merely mentions a phrase (a client's text in a statement) is not an outage.
    fc.assert(
      fc.property(lost, fc.string({ minLength: 1 }), (phrase, after) => {
        fc.pre(!after.endsWith(phrase));
        expect(isDependencyUnavailable(new Error(`insert '${phrase}' - ${after}`))).toBe(false);
      }),
    );
    expect(isDependencyUnavailable(new Error('Unable to acquire a connection'))).toBe(false);
    // A peer's 503 is an answer, not this process' failure; a consumer still waits it out.
    expect(isDependencyUnavailable(new AppError('SERVICE_UNAVAILABLE', 'identity did not answer'))).toBe(false);
    expect(isTransientFailure(new AppError('SERVICE_UNAVAILABLE', 'identity did not answer'))).toBe(true);
    expect(isTransientFailure(new AppError('VALIDATION_ERROR', 'bad content'))).toBe(false);
  });

  it('sockets refused or reset, a pool that cannot connect in time, and the broker gone', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'])
      expect(unavailableDependencyOf(withCode(`connect ${code}`, code))).toBe('network');
    const poolTimeout = Object.assign(
      new Error('Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?'),
      { name: 'KnexTimeoutError' },
    );
    expect(unavailableDependencyOf(poolTimeout)).toBe('database');
    expect(unavailableDependencyOf(new DependencyUnavailableError('broker', 'broker is not connected'))).toBe('broker');
    expect(unavailableDependencyOf(Object.assign(new Error('Channel closed'), { name: 'IllegalOperationError' }))).toBe('broker');
    expect(unavailableDependencyOf(new Error('Channel closed by server: 404 (NOT-FOUND) with message "NOT_FOUND - no queue"'))).toBeNull();
    expect(unavailableDependencyOf(withCode('ENOENT: no such file', 'ENOENT'))).toBeNull();
  });
});

/** Until `count` statements sleep in this database's server sessions: in flight there, not still on their way. */
async function sleepingOnServer(databaseUrl: string, count: number): Promise<void> {
  const direct = createDb(databaseUrl, { poolMax: 1 });
  try {
    await waitFor(
      async () => {
        const found = await direct.raw<{ rows: Array<{ sleeping: number }> }>(
          `SELECT count(*)::int AS sleeping FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
        );
        return (found.rows[0]?.sleeping ?? 0) >= count ? true : undefined;
      },
      { what: `${count} statements sleeping on the server` },
    );
  } finally {
    await direct.destroy();
  }
}

describe('real failures of PostgreSQL through a proxy the test cuts', () => {
  let proxy: TcpProxy;
  let databaseUrl: string;
  let db: Db;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase('kit_dependency');
    proxy = await startTcpProxy(databaseUrl);
    db = createDb(proxy.urlThrough(databaseUrl), { poolMax: 2 });
    await db.schema.createTable('things', (table) => {
      table.text('id').primary();
    });
  });

  afterEach(async () => {
    await proxy.reopen();
  });

  afterAll(async () => {
    await db.destroy();
    await proxy.close();
  });

  it('a connection cut under a query or a transaction, a server refusing or still starting up: all unavailable', async () => {
    const underQuery = failureOf(db.raw('SELECT pg_sleep(5)'));
    const underTransaction = failureOf(
      db.transaction(async (tx) => {
        await tx('things').insert({ id: 'in-flight' });
        await tx.raw('SELECT pg_sleep(5)');
      }),
    );
    await sleepingOnServer(databaseUrl, 2);
    await proxy.cut('refuse');
    const failures = [await underQuery, await underTransaction, await failureOf(db.raw('SELECT 1'))];
    await proxy.cut('starting-up');
    failures.push(await failureOf(db.raw('SELECT 1')));
    expect(failures.map((failure) => unavailableDependencyOf(failure))).toEqual(['database', 'database', 'network', 'database']);
    await proxy.reopen();
    expect(await db('things').where({ id: 'in-flight' }).first()).toBeUndefined();
  });

  it('what a statement itself gets wrong is no outage', async () => {
    await db('things').insert({ id: 'taken' });
    const failures = [
      await failureOf(db('things').insert({ id: 'taken' })),
      await failureOf(db.raw('SELEC 1')),
      await failureOf(db('things').insert({ id: 'nul\u0000byte' })),
      await failureOf(db('no_such_table').select('*')),
    ];
    for (const failure of failures) expect(isTransientFailure(failure)).toBe(false);
  });
});

describe('errorMiddleware answers an unavailable dependency with 503 and Retry-After', () => {
  let proxy: TcpProxy;
  let db: Db;
  let broker: Broker;
  let base: string;
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase('kit_dependency_http');
    proxy = await startTcpProxy(databaseUrl);
    db = createDb(proxy.urlThrough(databaseUrl), { poolMax: 2 });
    // Never started: as a broker the service lost.
    broker = new Broker({ url: 'amqp://guest:guest@127.0.0.1:9', name: 'kit-dependency-tests', logger });
    const app = express();
    app.use(correlationMiddleware);
    app.get('/rows', async (_request, response) => {
      response.json((await db.raw('SELECT 1 AS one')).rows);
    });
    app.get('/publish', async (_request, response) => {
      await broker.publish('anywhere', 'key', Buffer.from('{}'));
      response.json({ published: true });
    });
    app.get('/peer-down', () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'a peer did not answer', { dependency: 'ledger' });
    });
    app.get('/bug', () => {
      throw new Error('a plain bug');
    });
    app.use(errorMiddleware(logger));
    server = await listen(app, 0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await closeServer(server);
    await db.destroy();
    await proxy.close();
  });

  async function get(path: string): Promise<{ status: number; retryAfter: string | null; code: unknown }> {
    const response = await fetch(`${base}${path}`);
    const body = (await response.json()) as { error?: { code?: unknown } };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), code: body.error?.code };
  }

  it('the database cut, refused and starting up, then back without a restart; the broker down; a peer down; a bug stays a 500', async () => {
    expect((await get('/rows')).status).toBe(200);
    const unavailable = { status: 503, retryAfter: '2', code: 'SERVICE_UNAVAILABLE' };
    await proxy.cut('refuse');
    expect(await get('/rows')).toEqual(unavailable);
    await proxy.cut('starting-up');
    expect(await get('/rows')).toEqual(unavailable);
    await proxy.reopen();
    expect((await get('/rows')).status).toBe(200);
    expect(await get('/publish')).toEqual(unavailable);
    expect(await get('/peer-down')).toEqual(unavailable);
    expect(await get('/bug')).toEqual({ status: 500, retryAfter: null, code: 'INTERNAL_ERROR' });
  });
});

import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import fc from 'fast-check';
import type express from 'express';
import {
  AppError,
  claimIdempotencyKey,
  closeServer,
  completeInTransaction,
  createDb,
  createIdempotencyTable,
  createLogger,
  createMetrics,
  createServiceApp,
  type Db,
  firstAnswersStatement,
  IDEMPOTENCY_TABLE,
  IdempotencyInProgressError,
  idempotency,
  idempotencyOf,
  jsonResponse,
  listen,
  parseIdempotencyKey,
  idempotencyRetentionRule,
  purgeRule,
  requestFingerprint,
  signInternalToken,
  startRetention,
  type StoredResponse,
  tenantScopeOf,
  withIdempotency,
} from '@wallet/kit';
import { createTestDatabase, waitFor } from '@wallet/kit/testing';

const SECRET = 'kit-idempotency-test-secret-0123456789abcdef';
const logger = createLogger({ service: 'kit-idempotency-test', level: 'silent' });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Environment = 'test' | 'live';

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  json: any;
}

interface PostOptions {
  key?: string;
  body?: string;
  tenantId?: string;
  environment?: Environment;
  actor?: { type: string; id: string } | null;
  /** The credential: an API key's id (default ak_1), or null for a session (authMode session). */
  keyId?: string | null;
  authMode?: 'secret' | 'hmac' | 'session';
  scopes?: string[];
  delayMs?: number;
  correlationId?: string;
  headers?: Record<string, string>;
}

/** The claims `post` sends by default, as the fingerprint sees them. */
const TEST_PRINCIPAL = { surface: 'tenant', authMode: 'secret', keyId: 'ak_1', actor: null, scopes: ['ledger:write'] };

/** A fresh key per test, so tests never see each other's keys. */
const freshKey = (label: string) => `${label}-${randomUUID()}`;

describe('idempotency against real PostgreSQL', () => {
  let db: Db;
  let server: Server;
  let baseUrl: string;
  /** How many times each route's handler ran. */
  const runs = new Map<string, number>();
  const ran = (route: string) => runs.set(route, (runs.get(route) ?? 0) + 1);
  const runsOf = (route: string) => runs.get(route) ?? 0;
  let crashNext = false;
  let failBeforeCommitNext = false;
  let throwAfterCommitNext = false;
  let refuseAfterCommitNext = false;
  /** What the first-write route's handler found of its key when it started. */
  const keyRowsSeenByHandler: Array<{ status: string } | undefined> = [];

  async function insertThing(
    target: Db,
    request: express.Request,
    response: express.Response,
    route: string,
  ): Promise<{ id: string; route: string; createdAt: string }> {
    const { tenantId, environment } = tenantScopeOf(response);
    const thing = { id: `th_${randomUUID()}`, route, createdAt: new Date().toISOString() };
    await target('things').insert({
      id: thing.id,
      tenant_id: tenantId,
      environment,
      idempotency_key: request.get('idempotency-key') ?? null,
      route,
    });
    return thing;
  }

  const delayOf = (request: express.Request) => Number(request.get('x-test-delay-ms') ?? '0');

  function routes(app: express.Express): void {
    const required = idempotency({ db, required: true, logger });

    app.post('/v1/things', required, async (request, response) => {
      ran('things');
      await sleep(delayOf(request));
      const thing = await insertThing(db, request, response, 'things');
      response.status(201).location(`/v1/things/${thing.id}`).json(thing);
    });

    app.post('/v1/optional', idempotency({ db, required: false, logger }), async (request, response) => {
      ran('optional');
      const thing = await insertThing(db, request, response, 'optional');
      response.status(201).json(thing);
    });

    app.post('/v1/declined', required, async () => {
      ran('declined');
      throw new AppError('INSUFFICIENT_FUNDS', 'The wallet cannot cover this amount', { available: '0.00' });
    });

    app.post('/v1/unavailable', required, async () => {
      ran('unavailable');
      throw new AppError('SERVICE_UNAVAILABLE', 'The ledger did not answer');
    });

    app.post('/v1/crashing', required, async (request, response) => {
      ran('crashing');
      const thing = await db.transaction(async (tx) => {
        const inserted = await insertThing(tx, request, response, 'crashing');
        if (crashNext) {
          crashNext = false;
          throw new Error('crashed mid-way');
        }
        return inserted;
      });
      response.status(201).json(thing);
    });

    // The money-path pattern: the business row and the key's answer commit in one transaction.
    app.post('/v1/transactional', required, async (request, response) => {
      ran('transactional');
      await sleep(delayOf(request));
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      const thing = await db.transaction(async (tx) => {
        const inserted = await insertThing(tx, request, response, 'transactional');
        await handle.complete(tx, jsonResponse(201, inserted, { location: `/v1/things/${inserted.id}` }));
        if (failBeforeCommitNext) {
          failBeforeCommitNext = false;
          throw new Error('failed after the business insert, before commit');
        }
        return inserted;
      });
      response.status(201).location(`/v1/things/${thing.id}`).json(thing);
    });

    // Commits a 202 pending answer, then answers 201 once "confirmed" (or crashes after the commit).
    app.post('/v1/pending-then-confirmed', required, async (request, response) => {
      ran('pending-then-confirmed');
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      const thing = await db.transaction(async (tx) => {
        const inserted = await insertThing(tx, request, response, 'pending-then-confirmed');
        await handle.complete(tx, jsonResponse(202, { ...inserted, status: 'pending' }));
        return inserted;
      });
      if (throwAfterCommitNext) {
        throwAfterCommitNext = false;
        throw new Error('crashed after the commit');
      }
      if (refuseAfterCommitNext) {
        refuseAfterCommitNext = false;
        throw new AppError('WALLET_FROZEN', 'a refusal raised after the commit');
      }
      response.status(201).json({ ...thing, status: 'completed' });
    });

    // The transfer pattern: a 202 committed with the business row, then the 201 stored with the
    // confirmation in a second transaction; `x-test-send` makes the handler send something else.
    app.post('/v1/pending-then-answered', required, async (request, response) => {
      ran('pending-then-answered');
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      const thing = await db.transaction(async (tx) => {
        const inserted = await insertThing(tx, request, response, 'pending-then-answered');
        await handle.complete(tx, jsonResponse(202, { ...inserted, status: 'pending' }));
        return inserted;
      });
      const confirmed = { ...thing, status: 'completed' };
      if (request.get('x-test-overtake') === 'true')
        await db(IDEMPOTENCY_TABLE).where({ idempotency_key: handle.claim.key }).update({ lock_token: randomUUID() });
      await db.transaction((tx) => handle.answer(tx, jsonResponse(201, confirmed)));
      if (request.get('x-test-send') === 'other') response.status(200).json({ ...confirmed, note: 'sent instead' });
      else response.status(201).json(confirmed);
    });

    // The one-statement pattern: the key's answer and the business row in one WITH statement,
    // the row inserted only from the key's part (a taken-over key writes nothing).
    app.post('/v1/one-statement', required, async (request, response) => {
      ran('one-statement');
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      if (request.get('x-test-overtake') === 'true')
        await db(IDEMPOTENCY_TABLE).where({ idempotency_key: handle.claim.key }).update({ lock_token: randomUUID() });
      const { tenantId, environment } = tenantScopeOf(response);
      const thing = { id: `th_${randomUUID()}`, route: 'one-statement' };
      const answer = handle.completionStatement(jsonResponse(201, thing));
      const result = await db.raw<{ rows: Array<{ id: string }> }>(
        `WITH answer AS (${answer.sql})
         INSERT INTO things (id, tenant_id, environment, idempotency_key, route) SELECT ?, ?, ?, ?, ? FROM answer RETURNING id`,
        [...answer.bindings, thing.id, tenantId, environment, handle.claim.key, thing.route],
      );
      if (result.rows.length === 0) throw new IdempotencyInProgressError();
      response.status(201).json(thing);
    });

    // Short locks: the holder's renewals, not the lock's length, keep a slow handler's key.
    app.post('/v1/slow-renewed', idempotency({ db, required: true, logger, lockTimeoutMs: 300 }), async (request, response) => {
      ran('slow-renewed');
      await sleep(delayOf(request));
      const thing = await insertThing(db, request, response, 'slow-renewed');
      response.status(201).json(thing);
    });

    app.post('/v1/stuck', idempotency({ db, required: true, logger, lockTimeoutMs: 200, maxHoldMs: 300 }), async (request, response) => {
      ran('stuck');
      await sleep(delayOf(request));
      const thing = await insertThing(db, request, response, 'stuck');
      response.status(201).json(thing);
    });

    // Another attempt takes the key over while this one works (as after a lapsed lock).
    app.post('/v1/overtaken', required, async (request, response) => {
      ran('overtaken');
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      await db(IDEMPOTENCY_TABLE).where({ idempotency_key: handle.claim.key }).update({ lock_token: randomUUID() });
      const thing = await db.transaction(async (tx) => {
        const inserted = await insertThing(tx, request, response, 'overtaken');
        await handle.complete(tx, jsonResponse(201, inserted));
        return inserted;
      });
      response.status(201).json(thing);
    });

    // A route that writes its key itself, with the first answer, in its first statement.
    app.post('/v1/first-write', idempotency({ db, required: true, logger, claimAtFirstWrite: true }), async (request, response) => {
      ran('first-write');
      const handle = idempotencyOf(response);
      if (!handle) throw new Error('route is guarded by a required key');
      keyRowsSeenByHandler.push(await keyRow(handle.claim.key));
      await sleep(delayOf(request));
      const refusal = request.get('x-test-refuse');
      if (refusal === 'unavailable') throw new AppError('SERVICE_UNAVAILABLE', 'The ledger did not answer');
      if (refusal) throw new AppError('SAME_WALLET', `refused: ${refusal}`);
      const { tenantId, environment } = tenantScopeOf(response);
      const thing = { id: `th_${randomUUID()}`, route: 'first-write' };
      const answer = firstAnswersStatement([{ claim: handle.claim, response: jsonResponse(201, thing) }]);
      const result = await db.raw<{ rows: Array<{ id: string }> }>(
        `WITH answer AS (${answer.sql})
         INSERT INTO things (id, tenant_id, environment, idempotency_key, route) SELECT ?, ?, ?, ?, ? FROM answer RETURNING id`,
        [...answer.bindings, thing.id, tenantId, environment, handle.claim.key, thing.route],
      );
      if (result.rows.length === 0) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key came first');
      handle.written();
      response.status(201).json(thing);
    });

    app.post('/v1/chunked', required, (_request, response) => {
      ran('chunked');
      response.status(201).setHeader('content-type', 'text/plain; charset=utf-8');
      response.write('a');
      response.write(Buffer.from('b'));
      response.end('c');
    });

    app.post('/v1/answer-then-throw', required, async (_request, response) => {
      ran('answer-then-throw');
      response.status(201).json({ ok: true });
      throw new Error('thrown after answering');
    });
  }

  beforeAll(async () => {
    db = createDb(await createTestDatabase('kit_idempotency'), { poolMax: 20 });
    await createIdempotencyTable(db);
    await db.schema.createTable('things', (table) => {
      table.text('id').primary();
      table.text('tenant_id').notNullable();
      table.text('environment').notNullable();
      table.text('idempotency_key');
      table.text('route').notNullable();
    });
    // A constraint checked only at COMMIT: a way to fail a transaction after all its writes.
    await db.raw(`CREATE TABLE parents (id text PRIMARY KEY)`);
    await db.raw(`CREATE TABLE lines (id text PRIMARY KEY, parent_id text NOT NULL REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`);
    const app = createServiceApp({
      service: 'kit-idempotency',
      logger,
      metrics: createMetrics('kit-idempotency'),
      internalTokenSecret: SECRET,
      readiness: [],
      routes,
    });
    server = await listen(app, 0, '127.0.0.1');
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await closeServer(server);
    await db.destroy();
  });

  async function post(path: string, options: PostOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-internal-token': signInternalToken(SECRET, {
        surface: 'tenant',
        authMode: options.authMode ?? 'secret',
        tenantId: options.tenantId ?? 'tn_a',
        environment: options.environment ?? 'test',
        keyId: options.keyId === undefined ? 'ak_1' : options.keyId,
        scopes: options.scopes ?? ['ledger:write'],
        actor: options.actor ?? null,
      }),
      'x-correlation-id': options.correlationId ?? `corr-${randomUUID()}`,
    };
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    if (options.delayMs !== undefined) headers['x-test-delay-ms'] = String(options.delayMs);
    Object.assign(headers, options.headers);
    const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: options.body ?? '{"amount":100.10}' });
    const body = Buffer.from(await response.arrayBuffer());
    let json: any = null;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, body, json };
  }

  async function thingsWithKey(key: string): Promise<number> {
    const [row] = await db('things').where({ idempotency_key: key }).count<Array<{ count: string }>>('* as count');
    return Number(row?.count ?? 0);
  }

  async function keyRow(key: string): Promise<{ status: string } | undefined> {
    return db(IDEMPOTENCY_TABLE).where({ idempotency_key: key }).first<{ status: string } | undefined>('status');
  }

  function expectSameAnswer(replay: Answer, first: Answer): void {
    expect(replay.status).toBe(first.status);
    expect(replay.body.equals(first.body)).toBe(true);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
  }

  it('replays the first answer byte for byte for the same key and request, and runs the handler once', async () => {
    const key = freshKey('same');
    const first = await post('/v1/things', { key, correlationId: 'corr-first' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.headers.get('location')).toBe(`/v1/things/${first.json.id}`);

    const replay = await post('/v1/things', { key, correlationId: 'corr-replay' });
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The correlation id header is the retry's own; the body is the first answer's.
    expect(replay.headers.get('x-correlation-id')).toBe('corr-replay');
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('refuses the same key with another request: another body (100.10 vs 100.1), route or actor is 422', async () => {
    const key = freshKey('reuse');
    expect((await post('/v1/things', { key, body: '{"amount":100.10}' })).status).toBe(201);
    for (const attempt of [
      () => post('/v1/things', { key, body: '{"amount":100.1}' }),
      () => post('/v1/things', { key, body: '{"amount": 100.10}' }),
      () => post('/v1/optional', { key, body: '{"amount":100.10}' }),
      () => post('/v1/things', { key, body: '{"amount":100.10}', actor: { type: 'team_member', id: 'usr_other' } }),
    ]) {
      const answer = await attempt();
      expect(answer.status).toBe(422);
      expect(answer.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(answer.json.error.correlationId).toEqual(expect.any(String));
    }
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('replays only to the principal that made the first request: another key, member, actor or scope set is 422', async () => {
    const key = freshKey('principal');
    const member = { type: 'team_member', id: 'usr_admin' };
    const first = await post('/v1/things', { key, keyId: null, authMode: 'session', actor: member, scopes: ['tenant:manage'] });
    expect(first.status).toBe(201);
    const same = await post('/v1/things', { key, keyId: null, authMode: 'session', actor: member, scopes: ['tenant:manage'] });
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expectSameAnswer(same, first);
    for (const other of [
      // Another key of the tenant naming the member in its actor headers.
      { keyId: 'ak_weaker', actor: member, scopes: ['tenant:manage'] },
      { keyId: 'ak_weaker', actor: null, scopes: ['tenant:manage'] },
      // Another member's session.
      { keyId: null, authMode: 'session' as const, actor: { type: 'team_member', id: 'usr_other' }, scopes: ['tenant:manage'] },
      // The same member once its role grants less.
      { keyId: null, authMode: 'session' as const, actor: member, scopes: ['api_keys:manage'] },
    ]) {
      const answer = await post('/v1/things', { key, ...other });
      expect(`${answer.status} ${answer.json?.error?.code}`).toBe('422 IDEMPOTENCY_KEY_REUSED');
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('scopes keys per tenant and per environment', async () => {
    const key = freshKey('scoped');
    const answers = [
      await post('/v1/things', { key, tenantId: 'tn_a', environment: 'test' }),
      await post('/v1/things', { key, tenantId: 'tn_a', environment: 'live' }),
      await post('/v1/things', { key, tenantId: 'tn_b', environment: 'test' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(answers.every((answer) => answer.headers.get('idempotent-replayed') === null)).toBe(true);
    expect(new Set(answers.map((answer) => answer.json.id)).size).toBe(3);
    expect(await thingsWithKey(key)).toBe(3);
    const again = await post('/v1/things', { key, tenantId: 'tn_a', environment: 'live' });
    expectSameAnswer(again, answers[1] as Answer);
  });

  it('requires a key where the route says so, and checks its form', async () => {
    const before = runsOf('things');
    const missing = await post('/v1/things');
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    for (const bad of ['x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const answer = await post('/v1/things', { key: bad });
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('VALIDATION_ERROR');
    }
    expect(runsOf('things')).toBe(before);
    expect(await db('things').whereNull('idempotency_key').where({ route: 'things' }).first()).toBeUndefined();

    // An optional route without a key runs unguarded; with one, it is guarded.
    expect((await post('/v1/optional')).status).toBe(201);
    expect((await post('/v1/optional')).status).toBe(201);
    const key = freshKey('optional');
    const first = await post('/v1/optional', { key });
    expectSameAnswer(await post('/v1/optional', { key }), first);
    expect(await thingsWithKey(key)).toBe(1);
    expect((await post('/v1/things', { key: 'x'.repeat(255) })).status).toBe(201);
  });

  it.each(['/v1/things', '/v1/transactional'])('moves once for 50 concurrent requests with one key (%s)', async (path) => {
    const key = freshKey('fifty');
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(path, { key, delayMs: 50 })));
    expect(await thingsWithKey(key)).toBe(1);
    const originals = answers.filter((answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null);
    expect(originals).toHaveLength(1);
    const original = originals[0] as Answer;
    for (const answer of answers) {
      if (answer.status === 201) {
        expectSameAnswer(answer, original);
      } else {
        expect(answer.status).toBe(409);
        expect(answer.json.error.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
        expect(answer.headers.get('retry-after')).toBe('1');
      }
    }
    expect(answers.some((answer) => answer.status === 409)).toBe(true);
    expectSameAnswer(await post(path, { key }), original);
  });

  it('replays a business 4xx answer instead of running again', async () => {
    const key = freshKey('declined');
    const before = runsOf('declined');
    const first = await post('/v1/declined', { key });
    expect(first.status).toBe(422);
    expect(first.json.error.code).toBe('INSUFFICIENT_FUNDS');
    const replay = await post('/v1/declined', { key });
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(runsOf('declined')).toBe(before + 1);
  });

  it('does not remember a 503: the retry runs again', async () => {
    const key = freshKey('unavailable');
    const before = runsOf('unavailable');
    expect((await post('/v1/unavailable', { key })).status).toBe(503);
    expect(await keyRow(key)).toBeUndefined();
    const retry = await post('/v1/unavailable', { key });
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(runsOf('unavailable')).toBe(before + 2);
  });

  it('releases the key when the handler throws mid-way, so the retry runs again', async () => {
    const key = freshKey('crash');
    crashNext = true;
    const crashed = await post('/v1/crashing', { key });
    expect(crashed.status).toBe(500);
    expect(await keyRow(key)).toBeUndefined();
    expect(await thingsWithKey(key)).toBe(0);
    const retry = await post('/v1/crashing', { key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('lets exactly one of two concurrent retries take over a lapsed lock', async () => {
    const key = freshKey('lapsed');
    const body = '{"amount":7}';
    const scope = { tenantId: 'tn_a', environment: 'test' as const };
    // An attempt that claimed the key and then crashed: its lock is never renewed.
    const fingerprint = requestFingerprint({
      method: 'POST',
      pathWithQuery: '/v1/things',
      principal: TEST_PRINCIPAL,
      body: Buffer.from(body),
    });
    const crashed = await claimIdempotencyKey(db, scope, key, fingerprint);
    expect(crashed.kind).toBe('claimed');
    // While the lock is live, a retry is told to wait.
    const early = await post('/v1/things', { key, body });
    expect(early.status).toBe(409);
    await db(IDEMPOTENCY_TABLE)
      .where({ idempotency_key: key })
      .update({ locked_until: db.raw(`now() - interval '1 second'`) });

    const before = runsOf('things');
    const [one, two] = await Promise.all([
      post('/v1/things', { key, body, delayMs: 300 }),
      post('/v1/things', { key, body, delayMs: 300 }),
    ]);
    expect(runsOf('things')).toBe(before + 1);
    expect(await thingsWithKey(key)).toBe(1);
    expect([one?.status, two?.status].sort()).toEqual([201, 409]);
    expect((await keyRow(key))?.status).toBe('completed');
  });

  it("renews a live holder's lock, so a slow handler is not taken over, until maxHoldMs", async () => {
    const key = freshKey('renewed');
    const slow = post('/v1/slow-renewed', { key, delayMs: 1200 });
    await sleep(800);
    const during = await post('/v1/slow-renewed', { key });
    expect(during.status).toBe(409);
    const first = await slow;
    expect(first.status).toBe(201);
    expect(runsOf('slow-renewed')).toBe(1);

    // A handler stuck past maxHoldMs stops renewing: its lock lapses and a retry takes over.
    const stuckKey = freshKey('stuck');
    const stuck = post('/v1/stuck', { key: stuckKey, delayMs: 1500 });
    await sleep(900);
    const takeover = await post('/v1/stuck', { key: stuckKey });
    expect(takeover.status).toBe(201);
    expect(takeover.headers.get('idempotent-replayed')).toBeNull();
    // The stuck attempt's late answer is not remembered over the one that holds the key now.
    expect((await stuck).status).toBe(201);
    expectSameAnswer(await post('/v1/stuck', { key: stuckKey }), takeover);
  });

  it('lets exactly one of many concurrent claims take over a lapsed lock, and never with another fingerprint', async () => {
    const key = freshKey('lapsed-core');
    const scope = { tenantId: 'tn_a', environment: 'test' as const };
    const fingerprint = 'a'.repeat(64);
    expect((await claimIdempotencyKey(db, scope, key, fingerprint)).kind).toBe('claimed');
    await db(IDEMPOTENCY_TABLE)
      .where({ idempotency_key: key })
      .update({ locked_until: db.raw(`now() - interval '1 second'`) });
    expect((await claimIdempotencyKey(db, scope, key, 'b'.repeat(64))).kind).toBe('mismatch');
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => claimIdempotencyKey(db, scope, key, fingerprint)));
    const winners = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(winners).toHaveLength(1);
    expect(winners[0]?.kind === 'claimed' && winners[0].claim.takenOver).toBe(true);
    expect(outcomes.filter((outcome) => outcome.kind !== 'claimed').every((outcome) => outcome.kind === 'in_progress')).toBe(true);
  });

  it('rolls back the business write of an attempt whose lock was taken over', async () => {
    const key = freshKey('lost');
    const scope = { tenantId: 'tn_a', environment: 'test' as const };
    const fingerprint = 'c'.repeat(64);
    const slow = await claimIdempotencyKey(db, scope, key, fingerprint);
    if (slow.kind !== 'claimed') throw new Error('expected a claim');
    await db(IDEMPOTENCY_TABLE)
      .where({ idempotency_key: key })
      .update({ locked_until: db.raw(`now() - interval '1 second'`) });
    const retry = await claimIdempotencyKey(db, scope, key, fingerprint);
    if (retry.kind !== 'claimed') throw new Error('expected the takeover');

    const answer = jsonResponse(201, { ok: true });
    await expect(
      db.transaction(async (tx) => {
        await tx('things').insert({
          id: `th_${randomUUID()}`,
          tenant_id: 'tn_a',
          environment: 'test',
          idempotency_key: key,
          route: 'lost',
        });
        await completeInTransaction(tx, slow.claim, answer);
      }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
    await db.transaction(async (tx) => {
      await tx('things').insert({ id: `th_${randomUUID()}`, tenant_id: 'tn_a', environment: 'test', idempotency_key: key, route: 'lost' });
      await completeInTransaction(tx, retry.claim, answer);
    });
    expect(await thingsWithKey(key)).toBe(1);
    const replay = await claimIdempotencyKey(db, scope, key, fingerprint);
    expect(replay.kind === 'replay' && replay.response.body.equals(answer.body)).toBe(true);
  });

  it('answers 409 with Retry-After and rolls back when the key was taken over mid-way', async () => {
    const key = freshKey('overtaken');
    const answer = await post('/v1/overtaken', { key });
    expect(answer.status).toBe(409);
    expect(answer.json.error.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await thingsWithKey(key)).toBe(0);
    // The key stays with the attempt that took it over.
    expect((await keyRow(key))?.status).toBe('in_progress');
  });

  it('commits the business row and the answer together: a failure before commit leaves neither, and the retry runs', async () => {
    const key = freshKey('tx');
    failBeforeCommitNext = true;
    const failed = await post('/v1/transactional', { key });
    expect(failed.status).toBe(500);
    expect(await thingsWithKey(key)).toBe(0);
    expect(await keyRow(key)).toBeUndefined();

    const retry = await post('/v1/transactional', { key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post('/v1/transactional', { key });
    expectSameAnswer(replay, retry);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('keeps the committed answer when the handler fails after its transaction, and replaces it with the 2xx it sent', async () => {
    const crashedKey = freshKey('after-commit');
    throwAfterCommitNext = true;
    expect((await post('/v1/pending-then-confirmed', { key: crashedKey })).status).toBe(500);
    // Money moved: the key is not released; the retry gets the committed answer.
    const replay = await post('/v1/pending-then-confirmed', { key: crashedKey });
    expect(replay.status).toBe(202);
    expect(replay.json.status).toBe('pending');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await thingsWithKey(crashedKey)).toBe(1);

    // A 4xx sent after the commit does not hide that the work took effect either.
    const refusedKey = freshKey('refused-after-commit');
    refuseAfterCommitNext = true;
    expect((await post('/v1/pending-then-confirmed', { key: refusedKey })).status).toBe(422);
    const committed = await post('/v1/pending-then-confirmed', { key: refusedKey });
    expect(committed.status).toBe(202);
    expect(committed.json.status).toBe('pending');

    const confirmedKey = freshKey('confirmed');
    const first = await post('/v1/pending-then-confirmed', { key: confirmedKey });
    expect(first.status).toBe(201);
    expectSameAnswer(await post('/v1/pending-then-confirmed', { key: confirmedKey }), first);
    expect(await thingsWithKey(confirmedKey)).toBe(1);
  });

  it('stores an answer given in a transaction as the final one, and what was sent when the handler sends something else', async () => {
    const answeredKey = freshKey('answered');
    const first = await post('/v1/pending-then-answered', { key: answeredKey });
    expect(first.status).toBe(201);
    expect(first.json.status).toBe('completed');
    const replay = await post('/v1/pending-then-answered', { key: answeredKey });
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await thingsWithKey(answeredKey)).toBe(1);

    const otherKey = freshKey('answered-other');
    const sent = await post('/v1/pending-then-answered', { key: otherKey, headers: { 'x-test-send': 'other' } });
    expect(sent.status).toBe(200);
    expectSameAnswer(await post('/v1/pending-then-answered', { key: otherKey, headers: { 'x-test-send': 'other' } }), sent);
  });

  it("refuses an answer from an attempt whose key was taken over, leaving the holder's answer", async () => {
    const key = freshKey('answer-overtaken');
    const refused = await post('/v1/pending-then-answered', { key, headers: { 'x-test-overtake': 'true' } });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    const row = await db(IDEMPOTENCY_TABLE).where({ idempotency_key: key }).first('status', 'response_status');
    expect(row).toMatchObject({ status: 'completed', response_status: 202 });
  });

  it('writes the business row and the answer as one statement, and nothing when the key was taken over', async () => {
    const key = freshKey('one-statement');
    const first = await post('/v1/one-statement', { key });
    expect(first.status).toBe(201);
    expectSameAnswer(await post('/v1/one-statement', { key }), first);
    expect(await thingsWithKey(key)).toBe(1);

    const overtakenKey = freshKey('one-statement-overtaken');
    const refused = await post('/v1/one-statement', { key: overtakenKey, headers: { 'x-test-overtake': 'true' } });
    expect(refused.status).toBe(409);
    expect(await thingsWithKey(overtakenKey)).toBe(0);
  });

  it('replays the answer a crashed holder committed in its transaction, without running the handler', async () => {
    const key = freshKey('committed-crash');
    const body = '{"amount":3}';
    const fingerprint = requestFingerprint({
      method: 'POST',
      pathWithQuery: '/v1/transactional',
      principal: TEST_PRINCIPAL,
      body: Buffer.from(body),
    });
    const claimed = await claimIdempotencyKey(db, { tenantId: 'tn_a', environment: 'test' }, key, fingerprint);
    if (claimed.kind !== 'claimed') throw new Error('expected a claim');
    const answer = jsonResponse(201, { id: 'th_committed' }, { location: '/v1/things/th_committed' });
    await db.transaction(async (tx) => {
      await tx('things').insert({
        id: `th_${randomUUID()}`,
        tenant_id: 'tn_a',
        environment: 'test',
        idempotency_key: key,
        route: 'transactional',
      });
      await completeInTransaction(tx, claimed.claim, answer);
    });
    // ... and the process died before answering.
    const before = runsOf('transactional');
    const retry = await post('/v1/transactional', { key, body });
    expect(retry.status).toBe(201);
    expect(retry.body.equals(answer.body)).toBe(true);
    expect(retry.headers.get('location')).toBe('/v1/things/th_committed');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(runsOf('transactional')).toBe(before);
    expect(await thingsWithKey(key)).toBe(1);
  });

  it('remembers the answer before the client gets it, so a retry right after an answer is a replay', async () => {
    const key = freshKey('before-send');
    let receivedAt = 0;
    const answered = post('/v1/things', { key, delayMs: 300 }).then((answer) => {
      receivedAt = Date.now();
      return answer;
    });
    await waitFor(async () => ((await keyRow(key)) ? true : undefined), { what: 'the claim', intervalMs: 5 });
    // Hold the key's row: remembering the answer has to wait for us, and so must the answer.
    let releasedAt = 0;
    await db.transaction(async (tx) => {
      await tx(IDEMPOTENCY_TABLE).where({ idempotency_key: key }).forUpdate().first();
      await sleep(600);
      releasedAt = Date.now();
    });
    const first = await answered;
    expect(first.status).toBe(201);
    expect(receivedAt).toBeGreaterThanOrEqual(releasedAt - 20);
    expect((await keyRow(key))?.status).toBe('completed');
    expectSameAnswer(await post('/v1/things', { key }), first);
  });

  it('captures answers written in chunks, and keeps the first answer when the handler throws after it', async () => {
    const chunkedKey = freshKey('chunked');
    const chunked = await post('/v1/chunked', { key: chunkedKey });
    expect(chunked.body.toString()).toBe('abc');
    expectSameAnswer(await post('/v1/chunked', { key: chunkedKey }), chunked);

    const thrownKey = freshKey('thrown');
    const answered = await post('/v1/answer-then-throw', { key: thrownKey });
    expect(answered.status).toBe(201);
    expect(answered.json).toEqual({ ok: true });
    expect(answered.headers.get('content-length')).toBe(String(answered.body.length));
    const replay = await post('/v1/answer-then-throw', { key: thrownKey });
    expectSameAnswer(replay, answered);
    expect(runsOf('answer-then-throw')).toBe(1);
  });

  it('keeps keys 24 hours by default, refuses less, and forgets them after expiry', async () => {
    expect(() => idempotency({ db, required: true, ttlHours: 23 })).toThrow(/at least 24/);
    const key = freshKey('ttl');
    const first = await post('/v1/things', { key });
    const row = await db(IDEMPOTENCY_TABLE)
      .where({ idempotency_key: key })
      .first<{ seconds: string }>(db.raw('EXTRACT(EPOCH FROM expires_at - created_at)::bigint AS seconds'));
    expect(Number(row?.seconds)).toBe(24 * 3600);
    await db(IDEMPOTENCY_TABLE)
      .where({ idempotency_key: key })
      .update({ expires_at: db.raw(`now() - interval '1 second'`) });
    const afterExpiry = await post('/v1/things', { key, body: '{"amount":1}' });
    expect(afterExpiry.status).toBe(201);
    expect(afterExpiry.json.id).not.toBe(first.json.id);
    expect(await thingsWithKey(key)).toBe(2);
  });

  it('replays exactly when the bytes are the same (property over random keys and bodies)', async () => {
    // Any JSON inside an object: a body is always an object.
    const jsonObjectText = fc.json().map((text) => `{"value":${text}}`);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}[\x21-\x7e]$/),
        jsonObjectText,
        fc.boolean(),
        jsonObjectText,
        async (keyText, bodyA, reuse, other) => {
          run += 1;
          const key = `${run}-${randomUUID()}-${keyText}`.slice(0, 255);
          const bodyB = reuse ? bodyA : other;
          const first = await post('/v1/things', { key, body: bodyA });
          expect(first.status).toBe(201);
          const second = await post('/v1/things', { key, body: bodyB });
          if (bodyA === bodyB) {
            expectSameAnswer(second, first);
            expect(second.headers.get('idempotent-replayed')).toBe('true');
          } else {
            expect(second.status).toBe(422);
            expect(second.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
          }
          expect(await thingsWithKey(key)).toBe(1);
        },
      ),
      { numRuns: 30 },
    );
  });

  describe('claimed at the first write', () => {
    it('claims nothing before the handler: its own statement writes the key with the answer, and a retry replays it byte for byte', async () => {
      const key = freshKey('first-write');
      keyRowsSeenByHandler.length = 0;
      const first = await post('/v1/first-write', { key, correlationId: 'corr-first-write' });
      expect(first.status).toBe(201);
      expect(keyRowsSeenByHandler).toEqual([undefined]);
      expect(await keyRow(key)).toEqual({ status: 'completed' });

      const replay = await post('/v1/first-write', { key, correlationId: 'corr-first-write-replay' });
      expect(replay.status).toBe(201);
      expect(replay.body.equals(first.body)).toBe(true);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('x-correlation-id')).toBe('corr-first-write-replay');
      expect(await thingsWithKey(key)).toBe(1);
    });

    it('remembers a refusal given before the first write, and answers another request with the key 422 even when it is refused otherwise', async () => {
      const key = freshKey('first-write-refused');
      const refused = await post('/v1/first-write', { key, headers: { 'x-test-refuse': 'one' } });
      expect(refused.status).toBe(422);
      expect(refused.json.error.code).toBe('SAME_WALLET');
      // Same request, which would now pass: the remembered refusal.
      const again = await post('/v1/first-write', { key });
      expect(again.status).toBe(422);
      expect(again.body.equals(refused.body)).toBe(true);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      // Another request with the key, itself refused for another reason: the key's protocol answers.
      const other = await post('/v1/first-write', { key, body: '{"amount":1}', headers: { 'x-test-refuse': 'two' } });
      expect(other.status).toBe(422);
      expect(other.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await thingsWithKey(key)).toBe(0);
    });

    it('remembers nothing of a 5xx before the first write: the retry runs and writes', async () => {
      const key = freshKey('first-write-503');
      const unavailable = await post('/v1/first-write', { key, headers: { 'x-test-refuse': 'unavailable' } });
      expect(unavailable.status).toBe(503);
      expect(await keyRow(key)).toBeUndefined();
      const retried = await post('/v1/first-write', { key });
      expect(retried.status).toBe(201);
      expect(await thingsWithKey(key)).toBe(1);
    });

    it('writes once for concurrent attempts with one key: the others get its answer, or 409 while it is unwritten', async () => {
      const key = freshKey('first-write-concurrent');
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) => post('/v1/first-write', { key, delayMs: index % 3 === 0 ? 30 : 0 })),
      );
      const written = answers.filter((answer) => answer.status === 201);
      expect(written.length).toBeGreaterThanOrEqual(1);
      for (const answer of written) expect(answer.body.equals(written[0]?.body ?? Buffer.alloc(0))).toBe(true);
      for (const answer of answers.filter((each) => each.status !== 201)) {
        expect(answer.status).toBe(409);
        expect(answer.json.error.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
        expect(answer.headers.get('retry-after')).toBe('1');
      }
      expect(await thingsWithKey(key)).toBe(1);
    });

    it('refuses another request with a written key with 422 before writing anything', async () => {
      const key = freshKey('first-write-mismatch');
      expect((await post('/v1/first-write', { key })).status).toBe(201);
      const other = await post('/v1/first-write', { key, body: '{"amount":2}' });
      expect(other.status).toBe(422);
      expect(other.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await thingsWithKey(key)).toBe(1);
    });
  });

  describe('withIdempotency', () => {
    const scope = { tenantId: 'tn_w', environment: 'live' as const };

    async function lineCount(key: string): Promise<number> {
      const [row] = await db('lines').where('id', 'like', `${key}%`).count<Array<{ count: string }>>('* as count');
      return Number(row?.count ?? 0);
    }

    it('runs the work once and replays its answer; another fingerprint is 422', async () => {
      const key = freshKey('w');
      let calls = 0;
      const work = async (tx: Db): Promise<StoredResponse> => {
        calls += 1;
        await tx('parents').insert({ id: `${key}-p` });
        await tx('lines').insert({ id: `${key}-1`, parent_id: `${key}-p` });
        return jsonResponse(201, { id: `${key}-1` });
      };
      const first = await withIdempotency(db, scope, key, 'd'.repeat(64), work);
      const second = await withIdempotency(db, scope, key, 'd'.repeat(64), work);
      expect(first.replayed).toBe(false);
      expect(second.replayed).toBe(true);
      expect(second.response.body.equals(first.response.body)).toBe(true);
      expect(second.response.headers).toEqual(first.response.headers);
      expect(calls).toBe(1);
      await expect(withIdempotency(db, scope, key, 'e'.repeat(64), work)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      await expect(withIdempotency(db, scope, '', 'd'.repeat(64), work)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' });
    });

    it('leaves neither the business rows nor the key when the commit itself fails, and the retry runs', async () => {
      const key = freshKey('w-commit');
      // The deferred foreign key fails at COMMIT: after the business insert and the key's completion.
      const failing = withIdempotency(db, scope, key, 'f'.repeat(64), async (tx) => {
        await tx('lines').insert({ id: `${key}-1`, parent_id: 'missing-parent' });
        return jsonResponse(201, { id: `${key}-1` });
      });
      await expect(failing).rejects.toMatchObject({ code: '23503' });
      expect(await lineCount(key)).toBe(0);
      expect(await keyRow(key)).toBeUndefined();

      const retry = await withIdempotency(db, scope, key, 'f'.repeat(64), async (tx) => {
        await tx('parents').insert({ id: `${key}-p` });
        await tx('lines').insert({ id: `${key}-1`, parent_id: `${key}-p` });
        return jsonResponse(201, { id: `${key}-1` });
      });
      expect(retry.replayed).toBe(false);
      expect(await lineCount(key)).toBe(1);
      expect((await keyRow(key))?.status).toBe('completed');
    });

    it('rolls back and releases on a 5xx answer, remembers a thrown business 4xx', async () => {
      const key = freshKey('w-503');
      const unavailable = await withIdempotency(db, scope, key, '1'.repeat(64), async (tx) => {
        await tx('parents').insert({ id: `${key}-p` });
        return jsonResponse(503, { error: { code: 'SERVICE_UNAVAILABLE' } });
      });
      expect(unavailable.response.status).toBe(503);
      expect(
        await db('parents')
          .where({ id: `${key}-p` })
          .first(),
      ).toBeUndefined();
      expect(await keyRow(key)).toBeUndefined();

      const declinedKey = freshKey('w-422');
      let calls = 0;
      const declining = async (): Promise<StoredResponse> => {
        calls += 1;
        throw new AppError('INSUFFICIENT_FUNDS', 'The wallet cannot cover this amount');
      };
      await expect(withIdempotency(db, scope, declinedKey, '2'.repeat(64), declining, { correlationId: 'corr-w' })).rejects.toMatchObject({
        code: 'INSUFFICIENT_FUNDS',
      });
      const replay = await withIdempotency(db, scope, declinedKey, '2'.repeat(64), declining);
      expect(calls).toBe(1);
      expect(replay.replayed).toBe(true);
      expect(replay.response.status).toBe(422);
      expect(JSON.parse(replay.response.body.toString())).toEqual({
        error: { code: 'INSUFFICIENT_FUNDS', message: 'The wallet cannot cover this amount', correlationId: 'corr-w' },
      });

      const crashKey = freshKey('w-crash');
      await expect(withIdempotency(db, scope, crashKey, '3'.repeat(64), async () => Promise.reject(new Error('boom')))).rejects.toThrow(
        'boom',
      );
      expect(await keyRow(crashKey)).toBeUndefined();
    });

    it('runs the work once for 20 concurrent calls with one key', async () => {
      const key = freshKey('w-many');
      let calls = 0;
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          withIdempotency(db, scope, key, '4'.repeat(64), async (tx) => {
            calls += 1;
            await sleep(30);
            await tx('parents').insert({ id: `${key}-p` });
            return jsonResponse(201, { id: key });
          }),
        ),
      );
      expect(calls).toBe(1);
      for (const outcome of settled) {
        if (outcome.status === 'fulfilled') expect(outcome.value.response.status).toBe(201);
        else expect(outcome.reason).toMatchObject({ code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
      }
      expect(
        await db('parents')
          .where({ id: `${key}-p` })
          .count<Array<{ count: string }>>('* as count'),
      ).toEqual([{ count: '1' }]);
    });
  });
});

describe('idempotency fingerprints and keys', () => {
  const base = { method: 'POST', pathWithQuery: '/v1/transfers', principal: TEST_PRINCIPAL, body: Buffer.from('{"amount":100.10}') };

  it('is lowercase SHA-256 hex and tells 100.10 from 100.1', () => {
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...base, method: 'post' })).toBe(requestFingerprint(base));
    expect(requestFingerprint({ ...base, body: Buffer.from('{"amount":100.1}') })).not.toBe(requestFingerprint(base));
  });

  it('changes when any one part changes, and fields never run into each other', () => {
    const principals = fc.record({
      surface: fc.constantFrom('tenant', 'system'),
      authMode: fc.constantFrom('secret', 'hmac', 'session', 'system'),
      keyId: fc.option(fc.string()),
      actor: fc.option(fc.record({ type: fc.string(), id: fc.string() })),
      scopes: fc.uniqueArray(fc.string()),
    });
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.uint8Array(),
        fc.uint8Array(),
        principals,
        principals,
        (pathA, pathB, bodyA, bodyB, principalA, principalB) => {
          const a = { method: 'POST', pathWithQuery: pathA, principal: principalA, body: Buffer.from(bodyA) };
          const b = { method: 'POST', pathWithQuery: pathB, principal: principalB, body: Buffer.from(bodyB) };
          const samePrincipal =
            JSON.stringify({ ...principalA, scopes: [...principalA.scopes].sort() }) ===
            JSON.stringify({ ...principalB, scopes: [...principalB.scopes].sort() });
          const same = pathA === pathB && Buffer.from(bodyA).equals(Buffer.from(bodyB)) && samePrincipal;
          expect(requestFingerprint(a) === requestFingerprint(b)).toBe(same);
          // Moving bytes from the path into the body is another request.
          if (pathA.length > 0) {
            const moved = {
              ...a,
              pathWithQuery: pathA.slice(0, -1),
              body: Buffer.concat([Buffer.from(pathA.slice(-1)), Buffer.from(bodyA)]),
            };
            expect(requestFingerprint(moved)).not.toBe(requestFingerprint(a));
          }
        },
      ),
      { numRuns: 500 },
    );
    expect(requestFingerprint({ ...base, pathWithQuery: '/v1/transfers?x=1' })).not.toBe(requestFingerprint(base));
  });

  it('binds the credential, not only the actor it names, and its scopes in any order', () => {
    const member = { type: 'team_member', id: 'usr_1' };
    const asMember = requestFingerprint({ ...base, principal: { ...TEST_PRINCIPAL, actor: member } });
    expect(asMember).not.toBe(requestFingerprint(base));
    expect(requestFingerprint({ ...base, principal: { ...TEST_PRINCIPAL, keyId: 'ak_2', actor: member } })).not.toBe(asMember);
    expect(requestFingerprint({ ...base, principal: { ...TEST_PRINCIPAL, keyId: null, authMode: 'session', actor: member } })).not.toBe(
      asMember,
    );
    const scoped = (scopes: string[]) => requestFingerprint({ ...base, principal: { ...TEST_PRINCIPAL, scopes } });
    expect(scoped(['a:read', 'b:write'])).toBe(scoped(['b:write', 'a:read']));
    expect(scoped(['a:read'])).not.toBe(scoped(['a:read', 'b:write']));
  });

  it('accepts exactly 1 to 255 printable ASCII characters', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\x20-\x7e]{1,255}$/), (key) => {
        expect(parseIdempotencyKey(key)).toBe(key);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }), (key) => {
        const valid = /^[\x20-\x7e]{1,255}$/.test(key);
        if (valid) expect(parseIdempotencyKey(key)).toBe(key);
        else expect(() => parseIdempotencyKey(key)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
      }),
    );
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('')).toBeUndefined();
  });
});

describe('idempotency key purge', () => {
  let db: Db;
  beforeAll(async () => {
    db = createDb(await createTestDatabase('kit_idempotency_purge'));
    await createIdempotencyTable(db);
  });
  afterAll(async () => {
    await db.destroy();
  });

  function row(key: string, status: 'in_progress' | 'completed', expiresIn: string, lockedIn: string | null) {
    return {
      tenant_id: 'tn_p',
      environment: 'test',
      idempotency_key: key,
      fingerprint: '0'.repeat(64),
      status,
      lock_token: randomUUID(),
      locked_until: lockedIn === null ? null : db.raw(`now() + interval '${lockedIn}'`),
      response_status: status === 'completed' ? 201 : null,
      response_headers: status === 'completed' ? JSON.stringify({ 'content-type': 'application/json' }) : null,
      response_body: status === 'completed' ? Buffer.from('{}') : null,
      expires_at: db.raw(`now() + interval '${expiresIn}'`),
    };
  }

  it('deletes only keys past their retention and not held by a live attempt, in bounded batches', async () => {
    await db(IDEMPOTENCY_TABLE).insert([
      ...Array.from({ length: 5 }, (_, index) => row(`expired-${index}`, 'completed', '-1 second', null)),
      row('expired-lapsed', 'in_progress', '-1 hour', '-1 minute'),
      row('expired-held', 'in_progress', '-1 hour', '1 minute'),
      row('live-completed', 'completed', '1 hour', null),
      row('live-held', 'in_progress', '1 hour', '1 minute'),
    ]);
    const rule = { ...idempotencyRetentionRule(), batchSize: 2 };
    expect(await purgeRule(db, rule)).toBe(6);
    const left = (await db(IDEMPOTENCY_TABLE).select('idempotency_key').orderBy('idempotency_key')).map(
      (found: { idempotency_key: string }) => found.idempotency_key,
    );
    expect(left).toEqual(['expired-held', 'live-completed', 'live-held']);
    // Bounded: at most maxBatches x batchSize per pass.
    await db(IDEMPOTENCY_TABLE).insert(Array.from({ length: 5 }, (_, index) => row(`again-${index}`, 'completed', '-1 second', null)));
    expect(await purgeRule(db, rule, { maxBatches: 1 })).toBe(2);
    expect(await purgeRule(db, rule)).toBe(3);
  });

  it('runs on an interval until stopped', async () => {
    await db(IDEMPOTENCY_TABLE).insert(row('interval-expired', 'completed', '-1 second', null));
    const purge = startRetention({ db, logger, rules: [idempotencyRetentionRule()], intervalMs: 20 });
    try {
      for (
        let waited = 0;
        waited < 5000 && (await db(IDEMPOTENCY_TABLE).where({ idempotency_key: 'interval-expired' }).first());
        waited += 20
      )
        await sleep(20);
      expect(await db(IDEMPOTENCY_TABLE).where({ idempotency_key: 'interval-expired' }).first()).toBeUndefined();
    } finally {
      await purge.stop();
    }
    await db(IDEMPOTENCY_TABLE).insert(row('after-stop', 'completed', '-1 second', null));
    await sleep(100);
    expect(await db(IDEMPOTENCY_TABLE).where({ idempotency_key: 'after-stop' }).first()).toBeDefined();
    expect(await purge.runOnce()).toEqual({ [IDEMPOTENCY_TABLE]: 1 });
  });
});

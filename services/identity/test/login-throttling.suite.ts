import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { auditEventSchema, errorBodySchema, pageSchema, teamMemberSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type HttpResult, type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the identity service over HTTP, and an SMTP server in this process.
 * Identity never learns the client's address (the gateway forwards none), so what these tests
 * send is what wrong passwords spread over any number of client addresses come to. The policy is
 * the default one (5 free failures) with locks of 60 s doubling up to 480 s; a test that needs a lock
 * or a count to be over moves its row's times into the past rather than sleeping, so a slow machine
 * never sees a lock run out between two steps.
 */
const LOCK_AFTER_FAILURES = 5;
const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
/** The SMTP server refuses mail to these addresses. */
const REFUSED_PREFIX = 'refused-';

interface ReceivedEmail {
  to: string[];
  text: string;
}

let smtp: SMTPServer;
let identity: IdentityHarness;
const inbox: ReceivedEmail[] = [];

async function startSmtpServer(): Promise<SMTPServer> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(address.address.startsWith(REFUSED_PREFIX) ? new Error('mailbox unavailable') : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), text: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const FIRST_LOCK_SECONDS = 60;
const lockEnv = { IDENTITY_LOGIN_LOCK_FIRST_SECONDS: String(FIRST_LOCK_SECONDS), IDENTITY_LOGIN_LOCK_MAX_SECONDS: '480' };

beforeAll(async () => {
  smtp = await startSmtpServer();
  const { port } = smtp.server.address() as AddressInfo;
  identity = await startIdentityHarness({ SMTP_URL: `smtp://127.0.0.1:${port}`, ...lockEnv });
});

afterAll(async () => {
  await identity?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const anonymous = () => internalToken({ surface: 'public', authMode: 'none' });

function ownerToken(tenantId: string, scopes = ['tenant:manage']): string {
  return internalToken({ surface: 'tenant', authMode: 'secret', tenantId, environment: 'live', keyId: 'ak_owner', scopes });
}

async function newTenant(name = 'Acme Payments', on = identity): Promise<string> {
  const created = await on.request('POST', '/v1/tenants', { body: tenantBody({ name }) });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function addMember(tenantId: string, email = `${uniqueSlug('member')}@example.com`, on = identity) {
  const body = { name: 'Mo Member', email, password: PASSWORD, orgRole: 'operator' };
  const created = await on.request('POST', '/v1/team', { token: ownerToken(tenantId), body });
  expect(created.status).toBe(201);
  return teamMemberSchema.parse(created.body);
}

function login(email: string, password: string, on = identity) {
  return on.request('POST', '/v1/auth/login', { token: anonymous(), body: { email, password } });
}

/** What a client can tell of an answer: status, code, message, details and Retry-After. */
function seen(result: HttpResult) {
  const error = result.status === 200 ? null : errorBodySchema.parse(result.body).error;
  const retryAfter = result.headers.get('retry-after');
  return { status: result.status, code: error?.code, message: error?.message, details: error?.details, retryAfter };
}

async function failTimes(email: string, times: number, on = identity): Promise<void> {
  for (let attempt = 0; attempt < times; attempt += 1) {
    expect(seen(await login(email, WRONG, on))).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
  }
}

function emailHash(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}

async function throttleRow(email: string): Promise<{ failures: number; locked_until: Date | null; last_failure_at: Date } | undefined> {
  return identity
    .db('login_throttles')
    .where({ email_hash: emailHash(email) })
    .first();
}

/** Moves the row's times into the past, as if that much time had gone by. */
async function backdate(email: string, column: 'locked_until' | 'last_failure_at', interval: string, on = identity): Promise<void> {
  const past = on.db.raw('now() - CAST(? AS interval)', [interval]);
  await on
    .db('login_throttles')
    .where({ email_hash: emailHash(email) })
    .update({ [column]: past });
}

/** As if the lock had run out. */
function endLock(email: string, on = identity): Promise<void> {
  return backdate(email, 'locked_until', '1 millisecond', on);
}

async function lockSeconds(email: string): Promise<number> {
  const row = await throttleRow(email);
  if (!row?.locked_until) throw new Error(`${email} is not locked`);
  return (row.locked_until.getTime() - row.last_failure_at.getTime()) / 1000;
}

async function lockEvents(on: IdentityHarness, tenantId: string) {
  const token = ownerToken(tenantId, ['audit:read']);
  const listed = await on.request('GET', '/v1/team/audit-events?action=team_member.login_locked', { token });
  return pageSchema(auditEventSchema).parse(listed.body).data;
}

function nonEmpty<Item>(items: Item[]): Item[] | undefined {
  return items.length > 0 ? items : undefined;
}

describe('POST /v1/auth/login, per login address', () => {
  it('refuses even the right password with 429 and Retry-After after 5 failures in a row, then lets it in, from zero again', async () => {
    const member = await addMember(await newTenant());
    await failTimes(member.email, LOCK_AFTER_FAILURES);

    const refused = await login(member.email.toUpperCase(), PASSWORD);
    const { retryAfterSeconds } = errorBodySchema.parse(refused.body).error.details as { retryAfterSeconds: number };
    // Whole seconds left, rounded up: the full lock unless the machine took a second or more to answer.
    expect(retryAfterSeconds).toBeGreaterThan(FIRST_LOCK_SECONDS - 10);
    expect(retryAfterSeconds).toBeLessThanOrEqual(FIRST_LOCK_SECONDS);
    expect(seen(refused)).toEqual({
      status: 429,
      code: 'LOGIN_TEMPORARILY_LOCKED',
      message: expect.any(String),
      details: { retryAfterSeconds },
      retryAfter: String(retryAfterSeconds),
    });

    // Attempts refused while locked are not counted: once the lock is over, the right password logs in.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(seen(await login(member.email, PASSWORD)).code).toBe('LOGIN_TEMPORARILY_LOCKED');
    }
    await endLock(member.email);
    const session = await login(member.email, PASSWORD);
    expect(session.status).toBe(200);
    expect(session.body.member.id).toBe(member.id);
    expect(await throttleRow(member.email)).toBeUndefined();

    await failTimes(member.email, LOCK_AFTER_FAILURES - 1);
    expect((await login(member.email, PASSWORD)).status).toBe(200);
  });

  it('doubles the lock with each further failure, up to the maximum, and keeps refusing without counting while locked', async () => {
    const member = await addMember(await newTenant());
    await failTimes(member.email, LOCK_AFTER_FAILURES);
    expect(await lockSeconds(member.email)).toBe(FIRST_LOCK_SECONDS);
    for (const expected of [120, 240, 480, 480]) {
      expect(seen(await login(member.email, WRONG)).code).toBe('LOGIN_TEMPORARILY_LOCKED');
      await endLock(member.email);
      expect(seen(await login(member.email, WRONG)).code).toBe('INVALID_CREDENTIALS');
      expect(await lockSeconds(member.email)).toBe(expected);
    }
    expect(await throttleRow(member.email)).toMatchObject({ failures: LOCK_AFTER_FAILURES + 4 });
  });

  it('starts again from zero after an hour without a failure', async () => {
    const member = await addMember(await newTenant());
    await failTimes(member.email, LOCK_AFTER_FAILURES - 1);
    await backdate(member.email, 'last_failure_at', '61 minutes');
    await failTimes(member.email, LOCK_AFTER_FAILURES - 1);
    expect(await throttleRow(member.email)).toMatchObject({ failures: LOCK_AFTER_FAILURES - 1, locked_until: null });
    expect((await login(member.email, PASSWORD)).status).toBe(200);
  });

  it("answers an address nobody has exactly as a member's address, attempt by attempt", async () => {
    const member = await addMember(await newTenant());
    const nobody = `nobody-${uniqueSlug('n')}@example.com`;
    const attempts = [...Array<string>(LOCK_AFTER_FAILURES).fill(WRONG), PASSWORD, WRONG, PASSWORD];
    const statuses: number[] = [];
    for (const password of attempts) {
      const [forMember, forNobody] = await Promise.all([login(member.email, password), login(nobody, password)]);
      expect(seen(forNobody)).toEqual(seen(forMember));
      statuses.push(forMember.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('lets no more than 5 of 20 concurrent wrong attempts check a password', async () => {
    const member = await addMember(await newTenant());
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(member.email, WRONG)));
    const codes = answers.map((answer) => seen(answer).code);
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).toHaveLength(LOCK_AFTER_FAILURES);
    expect(codes.filter((code) => code === 'LOGIN_TEMPORARILY_LOCKED')).toHaveLength(20 - LOCK_AFTER_FAILURES);
    expect(await throttleRow(member.email)).toMatchObject({ failures: LOCK_AFTER_FAILURES });
  });

  it('keeps only a hash of the address', async () => {
    const email = `hashed-${uniqueSlug('h')}@example.com`;
    await failTimes(email, 1);
    expect(await throttleRow(email)).toMatchObject({ failures: 1 });
    const localPart = email.split('@')[0];
    const found = await identity.db.raw(`SELECT count(*)::int AS n FROM login_throttles t WHERE t::text ILIKE ?`, [`%${localPart}%`]);
    expect(found.rows[0].n).toBe(0);
  });
});

describe('telling the member of a lock', () => {
  /** A service of its own, closed by the test: closing waits for the notices under way, so none can arrive after. */
  type Step = (harness: IdentityHarness) => Promise<void>;
  async function withOwnService(env: NodeJS.ProcessEnv, test: Step, afterClose: Step): Promise<void> {
    const harness = await startIdentityHarness({ ...lockEnv, ...env });
    let running = true;
    try {
      await test(harness);
      await harness.service.close();
      running = false;
      await afterClose(harness);
    } finally {
      if (running) await harness.service.close();
      await harness.db.destroy();
    }
  }

  it('writes team_member.login_locked in each organization of the address and sends one email, once a lock; none for others', async () => {
    const email = `locked-${uniqueSlug('l')}@example.com`;
    const stranger = `stranger-${uniqueSlug('s')}@example.com`;
    const { port } = smtp.server.address() as AddressInfo;
    let tenants: string[] = [];
    const memberIds: string[] = [];
    await withOwnService(
      { SMTP_URL: `smtp://127.0.0.1:${port}` },
      async (harness) => {
        tenants = [await newTenant('First Org', harness), await newTenant('Second Org', harness)];
        for (const tenantId of tenants) memberIds.push((await addMember(tenantId, email, harness)).id);
        await failTimes(email, LOCK_AFTER_FAILURES, harness);
        // Refused attempts belong to the lock they meet, as do the longer locks of further failures (below).
        expect(seen(await login(email, PASSWORD, harness)).code).toBe('LOGIN_TEMPORARILY_LOCKED');
        await failTimes(stranger, LOCK_AFTER_FAILURES, harness);

        const [event] = await waitFor(async () => nonEmpty(await lockEvents(harness, tenants[0] as string)), { what: 'the audit event' });
        expect(event).toMatchObject({ actorType: 'system', actorId: 'system', targetType: 'team_member', targetId: memberIds[0] });
        expect(event?.metadata).toEqual({ failures: LOCK_AFTER_FAILURES, lockedUntil: expect.any(String) });
        expect(Date.parse(String(event?.metadata.lockedUntil))).toBeGreaterThan(Date.now() - 5_000);
        const mail = await waitFor(async () => inbox.find((received) => received.to.includes(email)), { what: 'the lock email' });
        expect(mail.text).toContain('First Org');
        expect(mail.text).toContain('Second Org');

        await endLock(email, harness);
        await failTimes(email, 1, harness);
      },
      async (harness) => {
        const events = await harness.db('audit_events').where({ action: 'team_member.login_locked' }).select('tenant_id', 'target_id');
        const written = events.map((row: { tenant_id: string; target_id: string }) => `${row.tenant_id} ${row.target_id}`).sort();
        expect(written).toEqual([`${tenants[0]} ${memberIds[0]}`, `${tenants[1]} ${memberIds[1]}`].sort());
        expect(inbox.filter((received) => received.to.includes(email))).toHaveLength(1);
        expect(inbox.filter((received) => received.to.includes(stranger))).toHaveLength(0);
      },
    );
  });

  it('answers the locking attempt and writes its audit event when the mail server refuses the email', async () => {
    const tenantId = await newTenant('Unmailed Org');
    const member = await addMember(tenantId, `${REFUSED_PREFIX}${uniqueSlug('r')}@example.com`);
    // The fifth is the one that locks: its answer does not wait for the email, nor fail with it.
    await failTimes(member.email, LOCK_AFTER_FAILURES);
    const [event] = await waitFor(async () => nonEmpty(await lockEvents(identity, tenantId)), { what: 'the audit event' });
    expect(event).toMatchObject({ targetId: member.id });
    expect(inbox.filter((received) => received.to.includes(member.email))).toHaveLength(0);
  });
});

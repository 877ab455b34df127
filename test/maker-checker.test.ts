import BigNumber from 'bignumber.js';
import { type AuditRecordV1, errorBodySchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  type Action,
  type Answer,
  type CaseTenant,
  type CaseType,
  type HeldCase,
  payoutCases,
  withdrawalCases,
} from './maker-checker-support';

/**
 * Maker-checker as wallet payouts (payments) and tenant withdrawals (treasury) both implement
 * it, one table of cases run against each. Real: PostgreSQL, RabbitMQ, the service over HTTP,
 * the ledger beside it, and identity answering for the members who request and decide.
 */
const CASE_TYPES: CaseType[] = [payoutCases(), withdrawalCases()];

/** Well-formed, never issued. */
const UNKNOWN_CASE = 'pc_00000000000000000000000000';

function expectError(answer: Answer, status: number, code: string) {
  expect(`${answer.status} ${errorBodySchema.safeParse(answer.body).data?.error.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(answer.body).error;
}

const isDecision = (record: AuditRecordV1): boolean => /\.(approved|rejected)$/.test(record.action);

interface Refusal {
  title: string;
  action: Action;
  /** Whose request it is: the owner's, or another tenant's. */
  by: 'owner' | 'intruder';
  actorId(members: CaseTenant): string;
  headerActor?(members: CaseTenant): string;
  caseId?: string;
  status: number;
  code: string;
}

const REFUSALS: Refusal[] = (['approve', 'reject'] as const).flatMap((action): Refusal[] => [
  {
    title: `the requester may not ${action} their own case`,
    action,
    by: 'owner',
    actorId: (t) => t.maker,
    status: 403,
    code: 'SELF_APPROVAL_FORBIDDEN',
  },
  {
    title: `a member whose role lacks the approve scope may not ${action}`,
    action,
    by: 'owner',
    actorId: (t) => t.observer,
    status: 403,
    code: 'ACTOR_NOT_PERMITTED',
  },
  {
    title: `an unknown member may not ${action}`,
    action,
    by: 'owner',
    actorId: () => 'usr_nobody',
    status: 403,
    code: 'ACTOR_NOT_PERMITTED',
  },
  {
    title: `a body actor other than the declared one may not ${action}`,
    action,
    by: 'owner',
    actorId: (t) => t.checker,
    headerActor: (t) => t.otherChecker,
    status: 403,
    code: 'ACTOR_MISMATCH',
  },
  {
    title: `an unknown case id answers 404 to ${action}`,
    action,
    by: 'owner',
    actorId: (t) => t.checker,
    caseId: UNKNOWN_CASE,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    title: `another tenant's checker may not ${action} (404)`,
    action,
    by: 'intruder',
    actorId: (t) => t.checker,
    status: 404,
    code: 'NOT_FOUND',
  },
]);

interface Outcome {
  action: Action;
  status: 'approved' | 'rejected';
  step: 'settle' | 'release';
  /** Where the source's balance ends: still short of the hold, or whole again. */
  source: 'balanceAfterHold' | 'balanceBeforeHold';
}

const OUTCOMES: Outcome[] = [
  { action: 'approve', status: 'approved', step: 'settle', source: 'balanceAfterHold' },
  { action: 'reject', status: 'rejected', step: 'release', source: 'balanceBeforeHold' },
];

describe.each(CASE_TYPES.map((type) => [type.name, type] as const))('maker-checker of %s', (_name, type) => {
  let owner: CaseTenant;
  let intruder: CaseTenant;

  beforeAll(async () => {
    await type.start();
    owner = await type.newTenant();
    intruder = await type.newTenant();
  });

  afterAll(async () => {
    await type.stop();
  });

  const kinds = (...steps: string[]): string[] => steps.map((step) => `${type.prefix}_${step}`);

  async function openHeld(tenant = owner): Promise<HeldCase> {
    const held = await type.openHeldCase(tenant);
    expect(held.shown).toMatchObject({
      status: 'pending',
      requestedBy: tenant.maker,
      decidedBy: null,
      holdJournalEntryId: expect.stringMatching(/^je_/),
    });
    expect(new BigNumber(held.balanceBeforeHold).minus(held.held).toFixed(2)).toBe(held.balanceAfterHold);
    return held;
  }

  /** Pending as created: the same read, only the hold posted, the money still held, no decision audited. */
  async function expectUndecided(held: HeldCase) {
    const read = await type.read(owner, held.id);
    expect(read.status).toBe(200);
    expect(type.parseCase(read.body)).toEqual(held.shown);
    expect(await type.entriesFor(held.id)).toEqual(kinds('hold'));
    expect(await held.sourceBalance()).toBe(held.balanceAfterHold);
    expect((await type.auditsOf(held.id)).filter(isDecision)).toEqual([]);
  }

  async function decisionAudits(id: string): Promise<AuditRecordV1[]> {
    return waitFor(
      async () => {
        const found = (await type.auditsOf(id)).filter(isDecision);
        return found.length > 0 ? found : undefined;
      },
      { what: `the decision audit of ${id}` },
    );
  }

  it.each(REFUSALS)('$title: $status $code, nothing changes', async (refusal) => {
    const held = await openHeld();
    const members = refusal.by === 'owner' ? owner : intruder;
    const headerActor = refusal.headerActor?.(members);
    const answer = await type.decide(
      members,
      refusal.caseId ?? held.id,
      refusal.action,
      refusal.actorId(members),
      headerActor === undefined ? {} : { headerActor },
    );
    expectError(answer, refusal.status, refusal.code);
    await expectUndecided(held);
    if (refusal.by === 'intruder') expectError(await type.read(intruder, held.id), 404, 'NOT_FOUND');
  });

  it.each(OUTCOMES)('$action: 200 $status, decided once the ledger posted the $step, the source at its $source', async (outcome) => {
    const held = await openHeld();
    const answer = await type.decide(owner, held.id, outcome.action, owner.checker, { reason: 'unknown supplier' });
    expect(answer.status).toBe(200);
    const decided = type.parseCase(answer.body);
    expect(decided).toMatchObject({
      id: held.id,
      status: outcome.status,
      decidedBy: owner.checker,
      rejectionReason: outcome.action === 'reject' ? 'unknown supplier' : null,
      holdJournalEntryId: held.shown.holdJournalEntryId,
      decisionJournalEntryId: expect.stringMatching(/^je_/),
      awaitingLedger: false,
    });
    // The answer came after the ledger posted: the reads right after show the same.
    expect(type.parseCase((await type.read(owner, held.id)).body)).toEqual(decided);
    expect(await type.entriesFor(held.id)).toEqual(kinds('hold', outcome.step));
    expect(await held.sourceBalance()).toBe(held[outcome.source]);
  });

  it.each(OUTCOMES)(
    'once $status, another decision is 409 CASE_NOT_PENDING and a replay under the key of the $action the identical answer',
    async (outcome) => {
      const held = await openHeld();
      const key = `idem-${held.id}`;
      const first = await type.decide(owner, held.id, outcome.action, owner.checker, { key });
      expect(first.status).toBe(200);
      expect(await type.decide(owner, held.id, outcome.action, owner.checker, { key })).toEqual(first);
      for (const action of ['approve', 'reject'] as const) {
        const error = expectError(await type.decide(owner, held.id, action, owner.otherChecker), 409, 'CASE_NOT_PENDING');
        expect(error.details).toMatchObject({ status: outcome.status });
      }
      expect(type.parseCase((await type.read(owner, held.id)).body)).toEqual(type.parseCase(first.body));
      expect(await type.entriesFor(held.id)).toEqual(kinds('hold', outcome.step));
      expect(await held.sourceBalance()).toBe(held[outcome.source]);
      expect(await decisionAudits(held.id)).toHaveLength(1);
    },
  );

  it('lets exactly one of 16 concurrent approvals and rejections by two checkers through', async () => {
    const held = await openHeld();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        type.decide(owner, held.id, index % 2 === 0 ? 'approve' : 'reject', index % 4 < 2 ? owner.checker : owner.otherChecker),
      ),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status !== 200)) expectError(answer, 409, 'CASE_NOT_PENDING');
    const winner = type.parseCase(winners[0]?.body);
    const outcome = OUTCOMES.find((each) => each.status === winner.status) as Outcome;
    expect(await type.entriesFor(held.id)).toEqual(kinds('hold', outcome.step));
    expect(await held.sourceBalance()).toBe(held[outcome.source]);
    const audits = await decisionAudits(held.id);
    expect(audits.map((record) => [record.action, record.actorId])).toEqual([[`${type.prefix}.${winner.status}`, winner.decidedBy]]);
  });

  it.each(OUTCOMES)(`audits the $action as ${type.prefix}.$status by the checker, with the status before and after`, async (outcome) => {
    const held = await openHeld();
    expect((await type.decide(owner, held.id, outcome.action, owner.checker, { reason: 'unknown supplier' })).status).toBe(200);
    const [audit, ...others] = await decisionAudits(held.id);
    expect(others).toEqual([]);
    expect(audit).toMatchObject({
      tenantId: owner.tenantId,
      action: `${type.prefix}.${outcome.status}`,
      actorId: owner.checker,
      targetType: type.auditTargetType,
      targetId: held.id,
      metadata: {
        before: { status: 'pending' },
        after: { status: outcome.status },
        ...(outcome.action === 'reject' ? { reason: 'unknown supplier' } : {}),
      },
    });
    if (outcome.action === 'approve') expect(audit?.metadata).not.toHaveProperty('reason');
  });

  it(`audits the request as ${type.prefix}.requested by the maker`, async () => {
    const held = await openHeld();
    const requested = await waitFor(
      async () => (await type.auditsOf(held.id)).find((record) => record.action === `${type.prefix}.requested`),
      { what: 'the request audit' },
    );
    expect(requested).toMatchObject({
      tenantId: owner.tenantId,
      actorId: owner.maker,
      targetType: type.auditTargetType,
      targetId: held.id,
    });
  });

  describe('under an approval policy', () => {
    let policed: CaseTenant;
    const usd = (rule: Record<string, unknown>) => ({ rules: [{ currencyCode: 'USD', aboveAmount: '10.00', ...rule }] });

    beforeAll(async () => {
      policed = await type.newTenant();
    });

    async function setPolicy(body: unknown): Promise<void> {
      const answer = await type.setPolicy(policed, body);
      expect(`${answer.status} ${JSON.stringify(answer.body)}`).toMatch(/^200 /);
    }

    it('above its amount a case needs two checkers: the first approval moves nothing, the same checker again is 409', async () => {
      await setPolicy(usd({ approvalsRequired: 2 }));
      const held = await openHeld(policed);
      expect(held.shown).toMatchObject({ approvalsRequired: 2, approverRole: null, approvals: [] });
      const key = `first-${held.id}`;
      const first = await type.decide(policed, held.id, 'approve', policed.checker, { key });
      expect(first.status).toBe(200);
      expect(type.parseCase(first.body)).toMatchObject({
        status: 'pending',
        decidedBy: null,
        awaitingLedger: false,
        approvals: [{ actorId: policed.checker }],
      });
      expect(await type.decide(policed, held.id, 'approve', policed.checker, { key })).toEqual(first);
      expectError(await type.decide(policed, held.id, 'approve', policed.checker), 409, 'APPROVAL_ALREADY_GIVEN');
      expect(await type.entriesFor(held.id)).toEqual(kinds('hold'));
      expect(await held.sourceBalance()).toBe(held.balanceAfterHold);

      const second = await type.decide(policed, held.id, 'approve', policed.otherChecker);
      expect(second.status).toBe(200);
      const approved = type.parseCase(second.body);
      expect(approved).toMatchObject({
        status: 'approved',
        decidedBy: policed.otherChecker,
        decisionJournalEntryId: expect.stringMatching(/^je_/),
      });
      expect(approved.approvals.map((approval) => approval.actorId)).toEqual([policed.checker, policed.otherChecker]);
      expect(await type.entriesFor(held.id)).toEqual(kinds('hold', 'settle'));
      const audits = await waitFor(
        async () => {
          const found = (await type.auditsOf(held.id)).filter((record) => record.action !== `${type.prefix}.requested`);
          return found.length === 2 ? found : undefined;
        },
        { what: 'both approvals audited' },
      );
      expect(audits.map((record) => [record.action, record.actorId])).toEqual([
        [`${type.prefix}.approval_recorded`, policed.checker],
        [`${type.prefix}.approved`, policed.otherChecker],
      ]);
      expect(audits[1]?.metadata).toMatchObject({ approvals: [policed.checker, policed.otherChecker] });
    });

    it('lets 12 concurrent approvals by two checkers approve the case once, with one settle', async () => {
      await setPolicy(usd({ approvalsRequired: 2 }));
      const held = await openHeld(policed);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          type.decide(policed, held.id, 'approve', index % 2 === 0 ? policed.checker : policed.otherChecker),
        ),
      );
      const codes = answers.map((answer) => (answer.status === 200 ? 200 : errorBodySchema.parse(answer.body).error.code));
      expect(codes.filter((code) => code === 200)).toHaveLength(2);
      for (const code of codes.filter((each) => each !== 200)) expect(['APPROVAL_ALREADY_GIVEN', 'CASE_NOT_PENDING']).toContain(code);
      const read = type.parseCase((await type.read(policed, held.id)).body);
      expect(read.status).toBe('approved');
      expect(new Set(read.approvals.map((approval) => approval.actorId))).toEqual(new Set([policed.checker, policed.otherChecker]));
      expect(await type.entriesFor(held.id)).toEqual(kinds('hold', 'settle'));
    });

    it('a role rule refuses a checker of another role (403, nothing changes) and lets the role approve; any checker may reject', async () => {
      await setPolicy(usd({ approvalsRequired: 1, approverRole: 'org-admin' }));
      const held = await openHeld(policed);
      expect(held.shown).toMatchObject({ approvalsRequired: 1, approverRole: 'org-admin' });
      const refused = expectError(await type.decide(policed, held.id, 'approve', policed.checker), 403, 'APPROVER_ROLE_REQUIRED');
      expect(refused.details).toMatchObject({ approverRole: 'org-admin' });
      expect(type.parseCase((await type.read(policed, held.id)).body)).toEqual(held.shown);
      const approved = await type.decide(policed, held.id, 'approve', policed.admin);
      expect(type.parseCase(approved.body)).toMatchObject({ status: 'approved', decidedBy: policed.admin });

      const other = await openHeld(policed);
      const rejected = await type.decide(policed, other.id, 'reject', policed.checker, { reason: 'no invoice' });
      expect(type.parseCase(rejected.body)).toMatchObject({ status: 'rejected', approvals: [] });
      expect(await other.sourceBalance()).toBe(other.balanceBeforeHold);
    });

    it('at or below its amount one checker decides; an open case keeps the requirement it was opened under', async () => {
      await setPolicy(usd({ aboveAmount: type.caseAmount, approvalsRequired: 2 }));
      const atAmount = await openHeld(policed);
      expect(atAmount.shown).toMatchObject({ approvalsRequired: 1, approverRole: null });
      await setPolicy(usd({ approvalsRequired: 2 }));
      const opened = await openHeld(policed);
      await setPolicy({ rules: [] });
      const stillTwo = await type.decide(policed, opened.id, 'approve', policed.checker);
      expect(type.parseCase(stillTwo.body)).toMatchObject({ status: 'pending', approvalsRequired: 2 });
      const once = await type.decide(policed, atAmount.id, 'approve', policed.checker);
      expect(type.parseCase(once.body)).toMatchObject({ status: 'approved' });
    });

    it.each([
      ['a rule asking for nothing more than the default', usd({ approvalsRequired: 1 }), 400, 'VALIDATION_ERROR'],
      ['a role that cannot approve', usd({ approvalsRequired: 1, approverRole: 'observer' }), 400, 'VALIDATION_ERROR'],
      [
        'two rules of one currency',
        { rules: [usd({ approvalsRequired: 2 }).rules[0], usd({ approvalsRequired: 2 }).rules[0]] },
        400,
        'VALIDATION_ERROR',
      ],
      ['an amount finer than the currency', usd({ aboveAmount: '10.001', approvalsRequired: 2 }), 400, 'INVALID_AMOUNT'],
    ] as const)('refuses %s (%i %s) and keeps the policy', async (_title, body, status, code) => {
      await setPolicy(usd({ approvalsRequired: 2 }));
      expectError(await type.setPolicy(policed, body), status, code);
      const held = await openHeld(policed);
      expect(held.shown).toMatchObject({ approvalsRequired: 2 });
    });
  });
});

import { bankSlipBodySchema, createWebhookEndpointBodySchema, reopenDepositBodySchema } from '@wallet/contracts';
import { ApiError } from '../src/api/errors';
import { createActionKeys } from '../src/api/idempotency';
import { describeDestination, formatAge } from '../src/format/cases';
import { checkDestination } from '../src/forms/destination';
import { amountProblem } from '../src/forms/money';
import { checkForm } from '../src/forms/schema';

const refusal = (status: number) => new ApiError({ status, code: 'UNKNOWN_ERROR', message: 'refused', correlationId: 'corr-1' });

describe('idempotency keys per user action', () => {
  const counter = () => {
    let next = 0;
    return () => `key-${++next}`;
  };

  it('keeps the key while the same action is retried with its outcome unknown, and makes a new one for a changed body', () => {
    const keys = createActionKeys(counter());
    const body = { walletId: 'wl_1', amount: '10.00' };
    const first = keys.keyFor(body);
    keys.settle(new ApiError({ status: 0, code: 'NETWORK_ERROR', message: 'offline', correlationId: null }));
    expect(keys.keyFor({ walletId: 'wl_1', amount: '10.00' })).toBe(first);
    keys.settle(refusal(503));
    expect(keys.keyFor(body)).toBe(first);
    // Another amount is another action: replaying the first one's answer would be wrong.
    expect(keys.keyFor({ walletId: 'wl_1', amount: '11.00' })).toBe('key-2');
  });

  it('starts a new action once the server answered, whether it accepted or refused', () => {
    const keys = createActionKeys(counter());
    const body = { actorId: 'usr_1' };
    expect(keys.keyFor(body)).toBe('key-1');
    keys.settle();
    expect(keys.keyFor(body)).toBe('key-2');
    keys.settle(refusal(409));
    expect(keys.keyFor(body)).toBe('key-3');
  });

  it('makes random UUIDs by default', () => {
    const keys = createActionKeys();
    expect(keys.keyFor({ a: 1 })).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('case formatting', () => {
  const created = '2026-11-23T10:00:00.000Z';
  const at = (offsetMs: number) => Date.parse(created) + offsetMs;

  it('says how long a case has waited in its two largest units', () => {
    expect(formatAge(created, at(42_000))).toBe('42 s');
    expect(formatAge(created, at(12 * 60_000 + 59_000))).toBe('12 min');
    expect(formatAge(created, at(3 * 3_600_000))).toBe('3 h');
    expect(formatAge(created, at(3 * 3_600_000 + 5 * 60_000))).toBe('3 h 5 min');
    expect(formatAge(created, at(2 * 86_400_000 + 4 * 3_600_000 + 59 * 60_000))).toBe('2 d 4 h');
    // A clock slightly behind the server's is no negative age.
    expect(formatAge(created, at(-5_000))).toBe('0 s');
    expect(formatAge('not a date', at(0))).toBe('not a date');
  });

  it('describes each kind of destination by its fields', () => {
    expect(describeDestination({ phoneNumber: '+256700000001', network: 'MTN' })).toBe('Mobile money +256700000001 (MTN)');
    expect(describeDestination({ bankCode: 'STANBIC', accountNumber: '0123', accountName: 'Jane Doe' })).toBe(
      'Bank STANBIC 0123 (Jane Doe)',
    );
    expect(describeDestination({ recipientName: 'Jane Doe' })).toBe('Cash to Jane Doe');
    expect(describeDestination({ recipientName: 'Jane Doe', location: 'Kampala' })).toBe('Cash to Jane Doe at Kampala');
  });
});

describe('money form checks', () => {
  it("applies the platform's amount rule for the currency before anything is sent", () => {
    expect(amountProblem('1250.50', 'USD')).toBeNull();
    expect(amountProblem('5000', 'UGX')).toBeNull();
    expect(amountProblem('10.5', 'UGX')).toBe('More decimal places than the currency has');
    expect(amountProblem('10.000', 'USD')).toBe('More decimal places than the currency has');
    expect(amountProblem('0', 'USD')).toBe('The amount must be more than zero');
    expect(amountProblem('1e3', 'USD')).toBe('Enter a plain decimal amount, like 1250.50');
    expect(amountProblem('1000000000000000000', 'USD')).toBe('The amount is too large');
    // Until the currency is valid, its own field says what is wrong.
    expect(amountProblem('10.5', 'XXX')).toBeNull();
  });

  it("checks a destination with its method's schema, each problem under its field", () => {
    expect(checkDestination('momo', { phoneNumber: ' +256700000001 ', network: 'MTN', accountName: 'ignored' })).toEqual({
      ok: true,
      value: { phoneNumber: '+256700000001', network: 'MTN' },
    });
    const bad = checkDestination('momo', { phoneNumber: 'call me', network: '' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && Object.keys(bad.errors).sort()).toEqual(['network', 'phoneNumber']);
    expect(checkDestination('cash', { recipientName: 'Jane' })).toEqual({ ok: true, value: { recipientName: 'Jane' } });
    const bank = checkDestination('bank', { bankCode: 'STANBIC', accountNumber: '0123' });
    expect(!bank.ok && bank.errors).toEqual({ accountName: expect.any(String) });
  });
});

describe("a form's problems in words", () => {
  it("says what zod's defaults say in its own terms, and keeps the messages the contracts wrote", () => {
    const reason = checkForm(reopenDepositBodySchema.pick({ reason: true }), { reason: '  ' });
    expect(reason).toEqual({ ok: false, errors: { reason: 'Required' } });
    const long = checkForm(reopenDepositBodySchema.pick({ reason: true }), { reason: 'x'.repeat(501) });
    expect(long).toEqual({ ok: false, errors: { reason: 'At most 500 characters' } });
    const slip = checkForm(bankSlipBodySchema.pick({ bankCode: true, currencyCode: true }), {
      bankCode: 'no spaces allowed',
      currencyCode: 'usd',
    });
    expect(slip.ok).toBe(false);
    if (!slip.ok) {
      expect(slip.errors.bankCode).toBe('must be 1-64 letters, digits, _ or -');
      expect(slip.errors.currencyCode).not.toMatch(/Too small|Invalid string|expected/);
    }
    const endpoint = checkForm(createWebhookEndpointBodySchema.pick({ url: true }), { url: 'not a url' });
    expect(endpoint).toEqual({ ok: false, errors: { url: 'Must be a web address (https://…)' } });
    const missing = checkForm(reopenDepositBodySchema, { reason: 'why' } as never);
    expect(missing).toEqual({ ok: false, errors: { actorId: 'Required' } });
  });
});

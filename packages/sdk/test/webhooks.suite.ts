import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isLosslessNumber, isWebhookVerificationError, verifyWebhook, WebhookVerificationError } from '../src';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const SECRET = newSecret();
const PREVIOUS_SECRET = newSecret();

// An amount as the platform sends it (a decimal string) and a number whose digits a float would lose.
const PAYLOAD =
  '{"id":"ev_01JD4Z0T9Q6W3M8V2K7N5R1X4B","type":"transfer.completed","createdAt":"2026-11-22T10:00:00.000Z","environment":"live",' +
  '"data":{"object":{"id":"tx_01JD4Z5K8P","amount":"100.10","currencyCode":"USD","sequence":12345678901234567890.10}}}';

function signedHeaders(payload: string, options: { secrets?: string[]; at?: Date; id?: string } = {}): Record<string, string> {
  const at = options.at ?? new Date();
  const id = options.id ?? 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const signatures = (options.secrets ?? [SECRET]).map((secret) => new Webhook(secret).sign(id, at, payload));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('the delivery was accepted');
}

describe('verifyWebhook', () => {
  it("accepts a delivery signed with standardwebhooks' own signer and returns its event, amounts as decimal strings", () => {
    const event = verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD), SECRET);

    expect(event).toMatchObject({ id: 'ev_01JD4Z0T9Q6W3M8V2K7N5R1X4B', type: 'transfer.completed', environment: 'live' });
    expect(event.data.object.amount).toBe('100.10');
    const sequence = event.data.object.sequence;
    expect(isLosslessNumber(sequence) && sequence.toString()).toBe('12345678901234567890.10');
  });

  it('takes the body as a Buffer and the headers as a fetch Headers or in any letter case', () => {
    const headers = signedHeaders(PAYLOAD);
    expect(verifyWebhook(Buffer.from(PAYLOAD, 'utf8'), new Headers(headers), SECRET).id).toBe('ev_01JD4Z0T9Q6W3M8V2K7N5R1X4B');
    const shouted = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(new TextEncoder().encode(PAYLOAD), shouted, SECRET).type).toBe('transfer.completed');
  });

  it('accepts a delivery during a rotation when one of its signatures matches one of the secrets', () => {
    const stranger = newSecret();
    // The sender signs with the old and the new secret; the receiver already knows only the new one.
    expect(verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { secrets: [stranger, SECRET] }), SECRET).id).toMatch(/^ev_/);
    // The receiver keeps both while the sender still signs with the old one alone.
    expect(verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { secrets: [PREVIOUS_SECRET] }), [SECRET, PREVIOUS_SECRET]).id).toMatch(/^ev_/);
    expect(refusal(() => verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { secrets: [stranger] }), [SECRET, PREVIOUS_SECRET])).reason).toBe(
      'invalid_signature',
    );
  });

  it('refuses a tampered body, another message id and a signature of another version', () => {
    const headers = signedHeaders(PAYLOAD);
    const tampered = PAYLOAD.replace('"100.10"', '"900.10"');
    const error = refusal(() => verifyWebhook(tampered, headers, SECRET));
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'invalid_signature' });
    expect(isWebhookVerificationError(error)).toBe(true);
    expect(refusal(() => verifyWebhook(PAYLOAD, { ...headers, 'webhook-id': 'msg_other' }, SECRET)).reason).toBe('invalid_signature');
    const v2 = { ...headers, 'webhook-signature': (headers['webhook-signature'] as string).replace('v1,', 'v2,') };
    expect(refusal(() => verifyWebhook(PAYLOAD, v2, SECRET)).reason).toBe('invalid_signature');
  });

  it('refuses a timestamp more than 5 minutes old or ahead, even correctly signed, and one that is not Unix seconds', () => {
    const old = new Date(Date.now() - 6 * 60 * 1000);
    expect(refusal(() => verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { at: old }), SECRET)).reason).toBe('timestamp_too_old');
    const ahead = new Date(Date.now() + 6 * 60 * 1000);
    expect(refusal(() => verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { at: ahead }), SECRET)).reason).toBe('timestamp_too_new');
    const recent = new Date(Date.now() - 4 * 60 * 1000);
    expect(verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD, { at: recent }), SECRET).id).toMatch(/^ev_/);
    const iso = { ...signedHeaders(PAYLOAD), 'webhook-timestamp': new Date().toISOString() };
    expect(refusal(() => verifyWebhook(PAYLOAD, iso, SECRET)).reason).toBe('invalid_timestamp');
  });

  it('refuses a delivery without its headers', () => {
    const { 'webhook-signature': _signature, ...unsigned } = signedHeaders(PAYLOAD);
    expect(refusal(() => verifyWebhook(PAYLOAD, unsigned, SECRET))).toMatchObject({
      reason: 'missing_headers',
      message: 'Missing webhook-signature',
    });
  });

  it('refuses a signed body that is not a platform event, handing over what was signed', () => {
    const newer = PAYLOAD.replace('transfer.completed', 'card.issued');
    const error = refusal(() => verifyWebhook(newer, signedHeaders(newer), SECRET));
    expect(error.reason).toBe('invalid_payload');
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['type']);
    expect(error.body).toMatchObject({ type: 'card.issued' });
    expect(refusal(() => verifyWebhook('not json', signedHeaders('not json'), SECRET)).reason).toBe('invalid_payload');
  });

  it('takes only secrets of the whsec_ form and at least one', () => {
    expect(() => verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD), 'whsec_!!!')).toThrow(TypeError);
    expect(() => verifyWebhook(PAYLOAD, signedHeaders(PAYLOAD), [])).toThrow(TypeError);
  });
});

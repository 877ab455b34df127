import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  canonicalRequest,
  contentSha256,
  momoWebhookSignature,
  momoWebhookSignedText,
  signatureHeader,
  signRequest,
} from '@wallet/contracts';

interface Vector {
  keyId: string;
  signingSecret: string;
  timestamp: string;
  name: string;
  method: string;
  pathWithQuery: string;
  body: string;
  nonce: string;
  idempotencyKey?: string;
  actorType?: string;
  actorId?: string;
  expected: { contentSha256: string; canonicalRequest: string; signatureHeader: string };
}

// The scheme's worked examples (docs/decisions/signing.md), kept beside the test so it runs from any checkout.
const vectors = JSON.parse(readFileSync(path.join(__dirname, 'signing-vectors.json'), 'utf8')) as {
  vectors: Vector[];
  momoWebhook: { webhookSecret: string; body: string; signedText: string; signature: string };
};

describe('v1 signed requests reproduce the shared vectors byte for byte', () => {
  it.each(vectors.vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    const hash = contentSha256(Buffer.from(vector.body, 'utf8'));
    expect(hash).toBe(vector.expected.contentSha256);
    const canonical = canonicalRequest({ ...vector, contentSha256: hash });
    expect(canonical).toBe(vector.expected.canonicalRequest);
    expect(signatureHeader(vector.signingSecret, canonical)).toBe(vector.expected.signatureHeader);

    const headers = signRequest({ ...vector, body: vector.body });
    expect(headers['X-Service-Signature']).toBe(vector.expected.signatureHeader);
    expect(headers['X-Service-Content-SHA256']).toBe(vector.expected.contentSha256);
    expect(headers['X-Service-Key-Id']).toBe(vector.keyId);
  });

  it('changes the signature when any canonical line changes', () => {
    const vector = vectors.vectors[0] as Vector;
    const base = signRequest({ ...vector, body: vector.body })['X-Service-Signature'];
    expect(signRequest({ ...vector, body: vector.body, nonce: 'other' })['X-Service-Signature']).not.toBe(base);
    expect(signRequest({ ...vector, body: `${vector.body} ` })['X-Service-Signature']).not.toBe(base);
    expect(signRequest({ ...vector, body: vector.body, actorId: 'usr_x' })['X-Service-Signature']).not.toBe(base);
  });
});

describe('mobile money webhook signature', () => {
  it('reproduces the shared vector from the amount token as sent', () => {
    const { momoWebhook } = vectors;
    const fields = {
      transactionId: 'MTN-7741-20261122-0009',
      walletId: 'wl_01JD4Z5K8P',
      amountText: '25000',
      currencyCode: 'UGX',
      phoneNumber: '+256772000111',
      timestamp: '2026-11-22T10:00:00.000Z',
    };
    expect(momoWebhookSignedText(fields)).toBe(momoWebhook.signedText);
    expect(momoWebhookSignature(momoWebhook.webhookSecret, fields)).toBe(momoWebhook.signature);
  });
});

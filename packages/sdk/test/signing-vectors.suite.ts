import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WalletClient } from '../src';
import { headerOf, signatureProblem, startTestServer, type TestServer } from './http-test-server';

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
const { vectors } = JSON.parse(readFileSync(path.join(__dirname, 'signing-vectors.json'), 'utf8')) as { vectors: Vector[] };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('the SDK signs the shared vectors byte for byte', () => {
  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
    const client = new WalletClient({
      baseUrl: server.baseUrl,
      auth: { type: 'hmac', keyId: vector.keyId, signingSecret: vector.signingSecret },
      now: () => new Date(vector.timestamp),
      nonce: () => vector.nonce,
      maxRetries: 0,
    });
    server.script({ status: 200, body: {} });
    const before = server.requests.length;
    await client.request(
      { method: vector.method as 'GET' | 'POST', path: vector.pathWithQuery, ...(vector.body === '' ? {} : { rawBody: vector.body }) },
      {
        ...(vector.idempotencyKey === undefined ? {} : { idempotencyKey: vector.idempotencyKey }),
        actor: vector.actorType !== undefined && vector.actorId !== undefined ? { type: vector.actorType, id: vector.actorId } : null,
      },
    );
    const request = server.requests[before];

    expect(request?.url).toBe(vector.pathWithQuery);
    expect(request?.body.equals(Buffer.from(vector.body, 'utf8'))).toBe(true);
    expect(headerOf(request, 'x-service-key-id')).toBe(vector.keyId);
    expect(headerOf(request, 'x-service-timestamp')).toBe(vector.timestamp);
    expect(headerOf(request, 'x-service-nonce')).toBe(vector.nonce);
    expect(headerOf(request, 'x-service-content-sha256')).toBe(vector.expected.contentSha256);
    expect(headerOf(request, 'x-service-signature')).toBe(vector.expected.signatureHeader);
    expect(headerOf(request, 'idempotency-key')).toBe(vector.idempotencyKey);
    expect(headerOf(request, 'x-service-actor-type')).toBe(vector.actorType);
    expect(headerOf(request, 'x-service-actor-id')).toBe(vector.actorId);
    expect(signatureProblem(request!, vector.signingSecret, Date.parse(vector.timestamp))).toBeNull();
  });
});

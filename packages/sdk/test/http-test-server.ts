import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalRequest, contentSha256, signatureHeader } from '@wallet/contracts';

/** One request exactly as it arrived: the raw request target and the raw body bytes. */
export interface RecordedRequest {
  method: string;
  /** The request target as received, percent-encoding and parameter order untouched. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAtMs: number;
}

export interface ScriptedResponse {
  status: number;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** `drop`: close the connection without an answer. `hang`: never answer. */
export type Responder = ScriptedResponse | 'drop' | 'hang' | ((request: RecordedRequest) => ScriptedResponse | 'drop' | 'hang');

export interface TestServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answers for the next requests, in order; once used up, every request gets a 500. */
  script(...responders: Responder[]): void;
  close(): Promise<void>;
}

export function errorBody(code: string, message: string, correlationId: string, details?: Record<string, unknown>) {
  return { error: { code, message, ...(details ? { details } : {}), correlationId } };
}

function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function headerOf(request: RecordedRequest | undefined, name: string): string | undefined {
  if (!request) throw new Error('no such request');
  return header(request, name);
}

/**
 * What the gateway checks of a signed request, recomputed from the bytes and request target as
 * received: null when it verifies, else the reason.
 */
export function signatureProblem(request: RecordedRequest, signingSecret: string, nowMs: number = Date.now()): string | null {
  const timestamp = header(request, 'x-service-timestamp') ?? '';
  const nonce = header(request, 'x-service-nonce') ?? '';
  const hash = header(request, 'x-service-content-sha256') ?? '';
  const signature = header(request, 'x-service-signature') ?? '';
  if (!header(request, 'x-service-key-id') || !timestamp || !nonce || !hash || !signature) return 'missing signing header';
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(timestamp)) return `timestamp ${timestamp} is not ISO with milliseconds`;
  if (Math.abs(Date.parse(timestamp) - nowMs) > 300_000) return 'stale timestamp';
  if (contentSha256(request.body) !== hash) return 'content hash differs from the body received';
  const canonical = canonicalRequest({
    timestamp,
    nonce,
    method: request.method,
    pathWithQuery: request.url,
    contentSha256: hash,
    idempotencyKey: header(request, 'idempotency-key'),
    actorType: header(request, 'x-service-actor-type'),
    actorId: header(request, 'x-service-actor-id'),
  });
  return signatureHeader(signingSecret, canonical) === signature ? null : 'signature does not verify';
}

function send(response: ServerResponse, scripted: ScriptedResponse, correlationId: string): void {
  const text = scripted.body === undefined ? '' : typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body);
  response.writeHead(scripted.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-correlation-id': correlationId,
    ...scripted.headers,
  });
  response.end(text);
}

/** A real HTTP server on an ephemeral port that records every request and answers from a script. */
export async function startTestServer(): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const queue: Responder[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
        receivedAtMs: Date.now(),
      };
      requests.push(recorded);
      const correlationId = header(recorded, 'x-correlation-id') ?? `corr-${randomUUID()}`;
      const next = queue.shift() ?? { status: 500, body: errorBody('INTERNAL_ERROR', 'no scripted response left', correlationId) };
      const answer = typeof next === 'function' ? next(recorded) : next;
      if (answer === 'hang') return;
      if (answer === 'drop') {
        request.socket.destroy();
        return;
      }
      send(response, answer, correlationId);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...responders) => queue.push(...responders),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

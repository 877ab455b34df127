import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorBody } from '@wallet/contracts';
import { closeServer, type InternalClaims, listen, verifyInternalToken } from '@wallet/kit';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import express from 'express';
import { type GatewayOptions, type RunningGateway, start } from '../src/main';

export const SYSTEM_KEY = 'sys_gateway_tests_0123456789abcdefghijklmnop';
export const INTERNAL_SECRET = 'gateway-tests-internal-token-secret-0123456789';

/** What the test upstream saw of one forwarded request. */
export interface EchoedRequest {
  method: string;
  path: string;
  query: string;
  bodyText: string;
  headers: Record<string, string | string[] | undefined>;
  token: string;
  claims: InternalClaims;
}

/**
 * A real HTTP server standing in for a service behind the gateway: it checks the internal
 * token as every service does, records what reached it and echoes it back. Query switches:
 * `status` answers with that status, `text` answers text/plain, `hang` never answers,
 * `error` answers the standard error body with that code instead of the echo.
 */
export interface UpstreamPeer {
  url: string;
  received: EchoedRequest[];
  close(): Promise<void>;
}

export async function startUpstreamPeer(): Promise<UpstreamPeer> {
  const received: EchoedRequest[] = [];
  const app = express();
  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.use(express.raw({ type: () => true, limit: '4mb' }));
  app.use((request, response) => {
    const questionMark = request.originalUrl.indexOf('?');
    const query = questionMark < 0 ? '' : request.originalUrl.slice(questionMark + 1);
    const switches = new URLSearchParams(query);
    if (switches.has('hang')) return;
    const token = request.get('x-internal-token') ?? '';
    const claims = verifyInternalToken(INTERNAL_SECRET, token);
    if (!claims) {
      response.status(401).json({ error: { code: 'INVALID_INTERNAL_TOKEN', message: 'no valid internal token', correlationId: 'peer' } });
      return;
    }
    const echoed: EchoedRequest = {
      method: request.method,
      path: questionMark < 0 ? request.originalUrl : request.originalUrl.slice(0, questionMark),
      query,
      bodyText: Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '',
      headers: request.headers,
      token,
      claims,
    };
    received.push(echoed);
    response.status(Number(switches.get('status') ?? 200));
    const errorCode = switches.get('error');
    if (errorCode) {
      response.json({
        error: { code: errorCode, message: 'refused by the test upstream', correlationId: request.get('x-correlation-id') ?? 'peer' },
      });
      return;
    }
    // A header naming itself in Connection is hop-by-hop; the other one belongs to the message.
    response.setHeader('Connection', 'keep-alive, X-Hop-Only');
    response.setHeader('X-Hop-Only', 'must not pass the gateway');
    response.setHeader('X-Upstream-Note', 'passes the gateway');
    if (switches.has('text')) {
      response.type('text/plain').send('plain words from upstream');
      return;
    }
    response.json(echoed);
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => closeServer(server),
  };
}

/** A port nothing listens on: bound by the OS, then released. */
export async function closedPortUrl(): Promise<string> {
  const server: Server = await listen(express(), 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return `http://127.0.0.1:${port}`;
}

/** The gateway's own database (request nonces) and broker vhost (key change messages) for this test file. */
let infrastructure: NodeJS.ProcessEnv = {};

/** Makes a fresh database and vhost for this test file; every later gatewayEnv() uses them. */
export async function prepareGatewayInfrastructure(label: string): Promise<{ databaseUrl: string; amqpUrl: string }> {
  const databaseUrl = await createTestDatabase(label, { migratedFor: 'gateway' });
  const amqpUrl = await createTestVhost(label);
  infrastructure = { GATEWAY_DATABASE_URL: databaseUrl, AMQP_URL: amqpUrl };
  return { databaseUrl, amqpUrl };
}

export function gatewayEnv(
  upstreams: { identity: string; ledger?: string; payments?: string; treasury?: string },
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GATEWAY_PORT: '0',
    ADMIN_PORT: '0',
    DASHBOARD_PORT: '0',
    HOST: '127.0.0.1',
    IDENTITY_URL: upstreams.identity,
    LEDGER_URL: upstreams.ledger ?? upstreams.identity,
    PAYMENTS_URL: upstreams.payments ?? upstreams.identity,
    TREASURY_URL: upstreams.treasury ?? upstreams.identity,
    SYSTEM_API_KEY: SYSTEM_KEY,
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...infrastructure,
    ...extra,
  };
}

export interface GatewayClient {
  gateway: RunningGateway;
  publicUrl: string;
  adminUrl: string;
}

export async function startGateway(env: NodeJS.ProcessEnv, options: GatewayOptions = {}): Promise<GatewayClient> {
  const gateway = await start(env, options);
  return { gateway, publicUrl: `http://127.0.0.1:${gateway.port}`, adminUrl: `http://127.0.0.1:${gateway.adminPort}` };
}

export const systemHeaders = { 'X-System-Key': SYSTEM_KEY };
export const jsonHeaders = { ...systemHeaders, 'Content-Type': 'application/json' };

/** Every JSON body these tests read: an echo of the upstream, an error, health or the API document. */
export type ResponseBody = Partial<EchoedRequest> & {
  error?: ErrorBody['error'];
  status?: string;
  service?: string;
  checks?: Array<{ name: string; status: string; message?: string }>;
  openapi?: string;
  paths?: Record<string, unknown>;
};

/** A response with its body read: JSON when it is JSON, else text. */
export async function read(response: Response): Promise<{ status: number; headers: Headers; body: ResponseBody; text: string }> {
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, headers: response.headers, body: isJson && text ? (JSON.parse(text) as ResponseBody) : {}, text };
}

/** Sends the request line exactly as given; fetch would normalize `..` before sending. */
export async function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: ResponseBody }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponseBody }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

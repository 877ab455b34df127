import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { AppError, closeServer, errorMiddleware, createLogger, jsonBodyMiddleware, listen } from '@wallet/kit';

describe('listen', () => {
  it('builds each request and response with the app prototypes, so express never re-parents them', async () => {
    const app = express();
    app.get('/probe', (request, response) => {
      response.json({ header: request.get('x-probe') ?? null, path: request.path });
    });
    const server = await listen(app, 0, '127.0.0.1');
    const seen: Array<{ request: boolean; response: boolean }> = [];
    // Runs before express: what node built, not what express made of it.
    server.prependListener('request', (request: IncomingMessage, response) => {
      seen.push({ request: Object.getPrototypeOf(request) === app.request, response: Object.getPrototypeOf(response) === app.response });
    });
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const answer = await fetch(`http://127.0.0.1:${port}/probe`, { headers: { 'x-probe': 'yes' } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ header: 'yes', path: '/probe' });
      expect(seen).toEqual([{ request: true, response: true }]);
    } finally {
      await closeServer(server);
    }
  });

  it('refuses a port that is taken', async () => {
    const first = await listen(express(), 0, '127.0.0.1');
    try {
      const address = first.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      await expect(listen(express(), port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await closeServer(first);
    }
  });
});

describe('request bodies', () => {
  const logger = createLogger({ service: 'kit-body-test', level: 'silent' });
  let port = 0;
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    const app = express();
    app.use(jsonBodyMiddleware({ limitBytes: 64 }));
    app.post('/echo', (request, response) => {
      const raw = response.locals.rawBody as Buffer;
      response.json({
        bytes: raw.toString('base64'),
        body: request.body === undefined ? null : String((request.body as { amount: unknown }).amount),
      });
    });
    app.use((_request, _response, next) => next(new AppError('NOT_FOUND', 'No such route')));
    app.use(errorMiddleware(logger));
    server = await listen(app, 0, '127.0.0.1');
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });

  afterAll(async () => {
    await closeServer(server);
  });

  /** Sends `body` as given (or in chunks of 16 bytes without a length); resolves to the status and the error code or echo. */
  function send(
    body: Buffer,
    headers: Record<string, string>,
    options: { chunked?: boolean } = {},
  ): Promise<{ status: number; json: { error?: { code: string }; bytes?: string; body?: string | null } }> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/echo',
          headers: options.chunked ? headers : { ...headers, 'content-length': String(body.length) },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }),
          );
        },
      );
      outgoing.on('error', reject);
      if (options.chunked) for (let at = 0; at < body.length; at += 16) outgoing.write(body.subarray(at, at + 16));
      else outgoing.write(body);
      outgoing.end();
    });
  }

  it('keeps the exact bytes and parses numbers losslessly, whether sized or chunked', async () => {
    const body = Buffer.from('{"amount": 100.10}');
    for (const chunked of [false, true]) {
      const answer = await send(body, { 'content-type': 'application/json' }, { chunked });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ bytes: body.toString('base64'), body: '100.10' });
    }
  });

  it('refuses a body over the limit with 413, declared or streamed', async () => {
    const big = Buffer.from(JSON.stringify({ amount: 1, note: 'x'.repeat(80) }));
    expect((await send(big, { 'content-type': 'application/json' })).json.error?.code).toBe('PAYLOAD_TOO_LARGE');
    const streamed = await send(big, { 'content-type': 'application/json' }, { chunked: true });
    expect(streamed.status).toBe(413);
    expect(streamed.json.error?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a content coding with 415 instead of inflating it: bodies are signed as sent', async () => {
    const answer = await send(gzipSync(Buffer.from('{"amount": 1}')), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(answer.status).toBe(415);
    expect(answer.json.error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses what is not JSON with MALFORMED_JSON', async () => {
    const answer = await send(Buffer.from('{"amount": 1,}'), { 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(answer.json.error?.code).toBe('MALFORMED_JSON');
  });

  it('refuses a body that is JSON but not an object, never reading it as an empty one', async () => {
    for (const text of ['123', '"x"', '[]', 'null', 'true', '[{"amount": 1}]']) {
      const answer = await send(Buffer.from(text), { 'content-type': 'application/json' });
      expect(`${text}: ${answer.status} ${answer.json.error?.code}`).toBe(`${text}: 400 VALIDATION_ERROR`);
    }
  });

  it('refuses bytes that are not UTF-8 instead of storing U+FFFD in their place', async () => {
    const invalid = [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82])];
    for (const bytes of invalid) {
      const body = Buffer.concat([Buffer.from('{"amount": 1, "name": "a'), bytes, Buffer.from('b"}')]);
      const answer = await send(body, { 'content-type': 'application/json' });
      expect(`${bytes.toString('hex')}: ${answer.status} ${answer.json.error?.code}`).toBe(
        `${bytes.toString('hex')}: 400 VALIDATION_ERROR`,
      );
    }
    const valid = await send(Buffer.from('{"amount": 1, "name": "Nguyễn 💸"}'), { 'content-type': 'application/json' });
    expect(valid.status).toBe(200);
  });
});

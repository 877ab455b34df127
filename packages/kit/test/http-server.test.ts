import type { IncomingMessage } from 'node:http';
import express from 'express';
import { closeServer, listen } from '@wallet/kit';

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

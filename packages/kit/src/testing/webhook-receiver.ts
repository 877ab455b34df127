import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, verified or not. */
export interface ReceivedAttempt {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The secrets (by index in `secrets`) whose signature matched. */
  verifiedWith: number[];
  answered: number | 'hung';
}

/** How the receiver answers the next requests: as a healthy endpoint, or as the failure under test. */
export type ReceiverMode = { kind: 'ok' } | { kind: 'status'; status: number; headers?: Record<string, string> } | { kind: 'hang' };

/**
 * A real webhook receiver for tests: an HTTP server that verifies every request with the
 * `standardwebhooks` library, as a tenant's would, and processes each event id once (a receiver
 * that de-duplicates by `webhook-id`). Its answers can be switched to fail, to hang, or to ask
 * for no more (410).
 */
export class WebhookReceiver {
  readonly attempts: ReceivedAttempt[] = [];
  /** Events processed, once each, in the order they were first accepted. */
  readonly processed = new Map<string, { type: string; body: Record<string, unknown> }>();
  /** Times each event id arrived verified and was answered 2xx: above 1 is a repeat the dedupe absorbed. */
  readonly acceptedCount = new Map<string, number>();
  secrets: string[] = [];
  mode: ReceiverMode = { kind: 'ok' };
  private server: Server | null = null;
  private readonly hanging = new Set<() => void>();

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const attempt = this.receive(request.headers, body);
        if (this.mode.kind === 'hang') {
          attempt.answered = 'hung';
          this.hanging.add(() => response.destroy());
          return;
        }
        const status = this.mode.kind === 'status' ? this.mode.status : attempt.verifiedWith.length > 0 ? 204 : 400;
        attempt.answered = status;
        if (status >= 200 && status < 300) this.accept(attempt);
        response.writeHead(status, this.mode.kind === 'status' ? this.mode.headers : {}).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  private receive(headers: IncomingHttpHeaders, body: string): ReceivedAttempt {
    const verifiedWith = this.secrets.flatMap((secret, index) => {
      try {
        new Webhook(secret).verify(body, headers as Record<string, string>);
        return [index];
      } catch {
        return [];
      }
    });
    const attempt: ReceivedAttempt = { id: String(headers['webhook-id'] ?? ''), headers, body, verifiedWith, answered: 0 };
    this.attempts.push(attempt);
    return attempt;
  }

  private accept(attempt: ReceivedAttempt): void {
    this.acceptedCount.set(attempt.id, (this.acceptedCount.get(attempt.id) ?? 0) + 1);
    if (this.processed.has(attempt.id)) return;
    const event = JSON.parse(attempt.body) as { type: string };
    this.processed.set(attempt.id, { type: event.type, body: event as Record<string, unknown> });
  }

  /** Drops the connections of hung requests (their sender sees a failure or a timeout). */
  releaseHung(): void {
    for (const release of this.hanging) release();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.releaseHung();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

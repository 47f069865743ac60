import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { paths } from '../../generated/api';
import type { TestApi, TestUser } from './api';
import { apiClient, dataOf } from './client';

type WebhookCreate = NonNullable<paths['/seller/webhooks']['post']['requestBody']>['content']['application/json'];

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Verified with the `standardwebhooks` package against the secret in force, or null. */
  payload: { type: string; data: Record<string, unknown> } | null;
  receivedAt: number;
  /** Which TCP connection it came on: 1 for the receiver's first, 2 for its second… */
  connection: number;
}

/** 'hang': never answer (until `release`); 'drop': close the connection without answering. */
export type Responder = (
  req: ReceivedWebhook,
  n: number,
) => { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'drop';

/**
 * A real HTTP receiver on 127.0.0.1 that records every request and verifies its signature with
 * the `standardwebhooks` package (a verifier written elsewhere), as a seller's receiver would.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: Responder = () => ({ status: 200, body: 'ok' });
  secret: string | undefined;
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly connections = new WeakMap<object, number>();
  private connectionCount = 0;
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server);
    server.on('connection', (socket) => receiver.connections.set(socket, ++receiver.connectionCount));
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** Requests whose signature verified, i.e. what a receiver would accept. */
  get verified(): Array<ReceivedWebhook & { payload: NonNullable<ReceivedWebhook['payload']> }> {
    return this.received.filter((r): r is ReceivedWebhook & { payload: NonNullable<ReceivedWebhook['payload']> } => r.payload !== null);
  }

  /**
   * Registers an endpoint pointing here for the seller, through the API (subscribed to
   * LISTING_CREATED unless `body` says otherwise), and verifies with its secret from now on.
   */
  async register(api: TestApi, seller: TestUser, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    // The body's extra fields are the caller's; the document still checks them (400 otherwise).
    const created = await dataOf(
      apiClient(api, seller.bearer).POST('/seller/webhooks', {
        body: { url: this.url, subscriptions: ['LISTING_CREATED'], ...body } as WebhookCreate,
      }),
      201,
    );
    this.secret = created.secret;
    return created;
  }

  /** Answers every request still hanging, so the server can close. */
  release(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const record: ReceivedWebhook = {
        headers: req.headers,
        body,
        payload: this.verify(body, req.headers),
        receivedAt: Date.now(),
        connection: this.connections.get(req.socket) ?? 0,
      };
      this.received.push(record);
      const answer = this.respond(record, this.received.length);
      if (answer === 'hang') {
        this.hanging.add(res);
        return;
      }
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  }

  private verify(body: string, headers: http.IncomingHttpHeaders): ReceivedWebhook['payload'] {
    if (!this.secret) return null;
    try {
      return new Webhook(this.secret).verify(body, headers as Record<string, string>) as ReceivedWebhook['payload'];
    } catch {
      return null;
    }
  }
}

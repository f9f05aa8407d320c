import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = { status: number; body?: unknown; delayMs?: number; raw?: string };
type Route = (request: RecordedRequest) => Reply | undefined;

/**
 * A small 3P server for tests, built from the contract: a client-credentials token endpoint and
 * whatever routes a test installs (`on`), every request recorded. Unknown routes answer 404 id 1.
 */
export class FakePartner {
  readonly requests: RecordedRequest[] = [];
  tokensIssued = 0;
  tokenLifetimeSeconds = 3600;
  /** Tokens the API accepts; `revokeTokens()` makes the API answer 401 to the ones issued so far. */
  private readonly valid = new Set<string>();
  private readonly routes: { method: string; pattern: RegExp; route: Route }[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    readonly clientId = 'marquee',
    readonly clientSecret = 'secret-of-marquee',
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  get authUrl(): string {
    return `http://127.0.0.1:${this.port}/oauth/token`;
  }

  on(method: string, pattern: RegExp, route: Route | Reply): this {
    this.routes.unshift({
      method,
      pattern,
      route: typeof route === 'function' ? route : () => route,
    });
    return this;
  }

  revokeTokens(): void {
    this.valid.clear();
  }

  calls(method: string, pattern: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path));
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(request);
    const send = (reply: Reply) => {
      const write = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body)));
      };
      if (reply.delayMs) setTimeout(write, reply.delayMs).unref();
      else write();
    };
    if (url.pathname === '/oauth/token') {
      const form = new URLSearchParams(request.body);
      if (
        form.get('client_id') !== this.clientId ||
        form.get('client_secret') !== this.clientSecret
      ) {
        return send({ status: 401, body: { error: 'invalid_client' } });
      }
      this.tokensIssued += 1;
      const token = `token-${this.tokensIssued}`;
      this.valid.add(token);
      return send({
        status: 200,
        body: {
          access_token: token,
          token_type: 'Bearer',
          expires_in: String(this.tokenLifetimeSeconds),
          scope: 'check:3p-system',
        },
      });
    }
    const auth = req.headers.authorization ?? '';
    if (!this.valid.has(auth.replace(/^Bearer /, ''))) {
      return send({ status: 401, body: { id: 401, message: 'unauthorized' } });
    }
    const path = url.pathname.replace(/^\/v1/, '');
    for (const { method, pattern, route } of this.routes) {
      if (method !== request.method || !pattern.test(path)) continue;
      const reply = route({ ...request, path });
      if (reply) return send(reply);
    }
    send({ status: 404, body: { id: 1, message: `no route ${request.method} ${path}` } });
  }
}

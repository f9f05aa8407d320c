import { serviceKeyring } from '@marquee/platform/grpc';
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEdgeGatewayConfig } from '../src/config.js';
import { TrustedProxies } from '@marquee/platform/http';
import { registerOAuthProxy } from '../src/ports/http/oauth-proxy.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });
const closing: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of closing.splice(0)) await app.close();
});

/** A stand-in auth-gateway that echoes what reached it. */
async function upstream(): Promise<string> {
  const app = Fastify();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/oauth/*', async (request, reply) => {
    void reply.header('set-cookie', 'marquee_oauth=abc; Path=/oauth; HttpOnly; SameSite=Strict');
    return {
      method: request.method,
      url: request.url,
      host: request.headers.host,
      forwardedFor: request.headers['x-forwarded-for'],
      forwardedBy: request.headers['x-marquee-forwarded-by'],
      contentType: request.headers['content-type'],
      body: request.body ?? null,
    };
  });
  closing.push(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function edge(upstreamUrl: string, trusted: string[] = []): Promise<FastifyInstance> {
  const sut = createHttpServer({ logger });
  await registerOAuthProxy(sut, {
    upstream: upstreamUrl,
    timeoutMs: 10_000,
    trustedProxies: new TrustedProxies(trusted),
  });
  closing.push(sut);
  await sut.ready();
  return sut;
}

describe('/oauth/* proxy to auth-gateway', () => {
  it('forwards method, path, query and the form body untouched, and passes cookies back', async () => {
    const sut = await edge(await upstream());
    const response = await sut.inject({
      method: 'POST',
      url: '/oauth/token?x=1',
      headers: {
        host: 'api.marquee.example',
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': '6.6.6.6',
      },
      payload: 'grant_type=authorization_code&code=abc',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      method: 'POST',
      url: '/oauth/token?x=1',
      host: 'api.marquee.example',
      forwardedFor: '127.0.0.1', // the address the edge saw, not the client's claim
      forwardedBy: expect.any(String),
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=authorization_code&code=abc',
    });
    expect(response.headers['set-cookie']).toContain('marquee_oauth=abc');
  });

  it('behind trusted proxies (the ingress) forwards the client address, never a spoofed entry', async () => {
    const sut = await edge(await upstream(), ['10.0.0.0/8', 'fd00::/8']);
    const forwarded = async (remoteAddress: string, xff?: string) =>
      (
        await sut.inject({
          url: '/oauth/authorize',
          remoteAddress,
          ...(xff === undefined ? {} : { headers: { 'x-forwarded-for': xff } }),
        })
      ).json<{ forwardedFor: string }>().forwardedFor;
    // The ingress appended the address it saw: that client, not the ingress, is forwarded.
    expect(await forwarded('10.0.3.4', '198.51.100.23')).toBe('198.51.100.23');
    // Two trusted hops (load balancer, then ingress); the client's own claim on the left is ignored.
    expect(await forwarded('10.0.3.4', '6.6.6.6, 198.51.100.23, 10.9.9.9')).toBe('198.51.100.23');
    expect(await forwarded('::ffff:10.0.3.4', '2001:db8::7')).toBe('2001:db8::7');
    expect(await forwarded('fd00::1', '198.51.100.24')).toBe('198.51.100.24');
    // An untrusted peer's header is ignored: the peer is the client.
    expect(await forwarded('203.0.113.5', '198.51.100.23')).toBe('203.0.113.5');
    // A trusted peer with no header, or garbage in it: the nearest address known.
    expect(await forwarded('10.0.3.4')).toBe('10.0.3.4');
    expect(await forwarded('10.0.3.4', 'not-an-ip')).toBe('10.0.3.4');
  });

  it("vouches for the forwarded address with the edge's service token, replacing a client's own", async () => {
    const sut = await edge(await upstream());
    const answer = await sut.inject({
      url: '/oauth/authorize',
      headers: { 'x-marquee-forwarded-by': 'forged-by-the-client' },
    });
    const { forwardedBy } = answer.json<{ forwardedBy: string }>();
    expect(serviceKeyring().verify(forwardedBy, 'marquee.auth.http')).toEqual({
      ok: true,
      caller: 'edge-gateway',
    });
  });

  it('refuses a TRUSTED_PROXIES entry that is no address or CIDR block', () => {
    expect(() => new TrustedProxies(['10.0.0.0/33'])).toThrow('not an IP address or CIDR block');
    expect(() => new TrustedProxies(['ingress'])).toThrow('not an IP address or CIDR block');
    expect(
      loadEdgeGatewayConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1' }).TRUSTED_PROXIES,
    ).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(() => loadEdgeGatewayConfig({ TRUSTED_PROXIES: '10.0.0.0/99' })).toThrow(
      /TRUSTED_PROXIES/,
    );
  });

  it('forwards GET pages such as /oauth/authorize and /oauth/info/<token>', async () => {
    const sut = await edge(await upstream());
    const page = await sut.inject({ url: '/oauth/authorize?client_id=c&state=s' });
    expect(page.json()).toMatchObject({
      method: 'GET',
      url: '/oauth/authorize?client_id=c&state=s',
    });
    const info = await sut.inject({ url: '/oauth/info/tok' });
    expect(info.json()).toMatchObject({ url: '/oauth/info/tok' });
  });

  it('never logs the access token of /oauth/info/<token>', async () => {
    const lines: string[] = [];
    const sut = createHttpServer({
      logger: createLogger({
        service: 'edge-test',
        level: 'trace',
        destination: { write: (line: string) => void lines.push(line) },
      }),
    });
    await registerOAuthProxy(sut, { upstream: await upstream(), timeoutMs: 10_000 });
    closing.push(sut);
    await sut.ready();
    const response = await sut.inject({ url: '/oauth/info/very-secret-token-value' });
    expect(response.statusCode).toBe(200);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain('very-secret-token-value');
  });

  it('answers 503 in the OAuth error shape when auth-gateway is down', async () => {
    const sut = await edge('http://127.0.0.1:9');
    const response = await sut.inject({ url: '/oauth/info/tok' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.any(String),
    });
  });
});

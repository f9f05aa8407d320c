// Token-endpoint and /oauth/info throughput and p99 of auth-gateway, side by side with oidc-provider
// configured for the same flow, in the same process and run. Prints one JSON report on stdout.
//   pnpm -s turbo run build --filter=@marquee/auth-gateway... && pnpm --filter @marquee/bench oauth
// BENCH_DURATION_S (default 10) and BENCH_CONNECTIONS (default 10) bound the load.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { authGatewayService } from '@marquee/auth-gateway';
import { createMemoryBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { hostService } from '@marquee/platform/service';
import { authV1 } from '@marquee/proto';
import autocannon from 'autocannon';
import Provider from 'oidc-provider';
import { createServer, type Server } from 'node:http';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const logger = createLogger({ service: 'bench', level: 'silent' });
const redirectUri = 'https://bench.example/callback';

interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

async function measure(load: Load) {
  const result = await autocannon({
    ...load,
    connections,
    duration: durationS,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

// --- auth-gateway (embedded mode: memory repositories, argon2id client-secret check) ------------
async function startAuthGateway() {
  const bus = createMemoryBus({ source: 'bench' });
  await bus.start();
  const infra = { name: 'auth-gateway', logger, bus, mongo: undefined };
  const config = authGatewayService.loadConfig({ HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const parts = await authGatewayService.compose(infra, config);
  const hosted = await hostService(infra, parts, {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: authGatewayService.callers!,
  });
  const base = `http://127.0.0.1:${hosted.httpPort}`;
  const grpc = createGrpcClient(authV1.AuthServiceClient, `127.0.0.1:${hosted.grpcPort}`, {
    deadlineMs: 10_000,
    logger,
    // auth-gateway answers the edge only.
    caller: 'edge-gateway',
  });
  const app = await callUnary(grpc, 'createApp', {
    name: 'Bench app',
    redirectUris: [redirectUri],
  });
  const fan = {
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench passphrase',
  };
  await callUnary(grpc, 'createFan', fan);

  // One authorization through the pages, as a browser would.
  const cookieOf = (r: Response) =>
    /marquee_oauth=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: 'all',
  });
  const page = await fetch(`${base}/oauth/authorize?${query}`);
  const post = (cookie: string, form: Record<string, string>) =>
    fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `marquee_oauth=${cookie}`,
      },
      body: new URLSearchParams(form),
    });
  const consent = await post(cookieOf(page)!, {
    action: 'login',
    csrf: csrfOf(await page.text())!,
    email: fan.email,
    password: fan.password,
  });
  const approved = await post(cookieOf(consent)!, {
    action: 'approve',
    csrf: csrfOf(await consent.text())!,
  });
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const tokens = (await (
    await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    })
  ).json()) as { access_token: string; refresh_token: string };
  return {
    token: {
      url: `${base}/oauth/token`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }).toString(),
    },
    info: { url: `${base}/oauth/info/${tokens.access_token}` },
    stop: async () => {
      grpc.close();
      await hosted.stop();
      await bus.close();
    },
  };
}

// --- oidc-provider, configured for the same flow -------------------------------------------------
async function startOidcProvider() {
  const clientId = 'bench-client';
  const clientSecret = randomBytes(32).toString('base64url');
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    routes: { authorization: '/oauth/authorize', token: '/oauth/token', userinfo: '/oauth/info' },
    scopes: ['openid', 'offline_access', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    ttl: { AccessToken: 3600, RefreshToken: 30 * 86_400 },
    rotateRefreshToken: false,
    pkce: { required: () => false },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: 'fan@example.com', email_verified: false }),
    }),
  });
  provider.proxy = false;
  // Tokens of one approved authorization, minted through the provider's own models (what its
  // authorization-code grant stores), so both sides are measured on the same two calls.
  const client = await provider.Client.find(clientId);
  const grant = new provider.Grant({ accountId: 'fan-1', clientId });
  grant.addOIDCScope('openid offline_access email');
  const grantId = await grant.save();
  const common = { accountId: 'fan-1', client: client!, grantId, gty: 'authorization_code' };
  const accessToken = await new provider.AccessToken({ ...common, scope: 'openid email' }).save();
  const refreshToken = await new provider.RefreshToken({
    ...common,
    scope: 'openid offline_access email',
  }).save();
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    token: {
      url: `${issuer}/oauth/token`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    },
    info: { url: `${issuer}/oauth/info`, headers: { authorization: `Bearer ${accessToken}` } },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function check(load: Load, name: string) {
  const response = await fetch(load.url, {
    method: load.method ?? 'GET',
    ...(load.headers ? { headers: load.headers } : {}),
    ...(load.body ? { body: load.body } : {}),
  });
  if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
}

const ours = await startAuthGateway();
const theirs = await startOidcProvider();
try {
  for (const [name, load] of Object.entries({
    'auth-gateway token': ours.token,
    'auth-gateway info': ours.info,
    'oidc-provider token': theirs.token,
    'oidc-provider info': theirs.info,
  })) {
    await check(load, name);
  }
  const report = {
    benchmark: 'oauth',
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    load: { tool: 'autocannon', connections, durationSeconds: durationS },
    notes: [
      'token = POST /oauth/token grant_type=refresh_token with client_secret_post (repeatable; the code grant is single-use)',
      'auth-gateway checks the client secret against its argon2id hash (19 MiB, t=2) once, then trusts a per-process HMAC of it for 5 minutes; oidc-provider compares a clear-text secret',
      'info = auth-gateway GET /oauth/info/<token>; oidc-provider userinfo (Bearer header) on the same path',
      "both in one process, in-memory storage, one after the other; info runs before token because oidc-provider's development memory adapter is an LRU that evicts the measured access token once the token run has minted thousands more",
    ],
    results: {
      'auth-gateway': { info: await measure(ours.info), token: await measure(ours.token) },
      'oidc-provider': { info: await measure(theirs.info), token: await measure(theirs.token) },
    },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await ours.stop();
  await theirs.stop();
}

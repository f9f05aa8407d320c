import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import {
  SERVICE_TOKEN_TTL_S,
  ServiceKeyring,
  callUnary,
  callerOf,
  createGrpcClient,
  createGrpcServer,
  runAsService,
  serviceAuthKeyProblem,
  startGrpcServer,
  stopGrpcServer,
} from '../../src/grpc/index.js';
import { createLogger } from '../../src/logger/index.js';
import { serviceConfigSchema } from '../../src/service/index.js';
import {
  GreeterClientCtor,
  HealthClientCtor,
  greeterDefinition,
  type GreeterClient,
  type HelloReply,
} from './greeter.js';

const AUDIENCE = 'marquee.test.v1.Greeter';

describe('ServiceKeyring (service tokens)', () => {
  const keyring = ServiceKeyring.generate();
  const now = Date.UTC(2030, 0, 1);

  it('verifies a token it minted and names the caller', () => {
    const token = keyring.mint('edge-gateway', AUDIENCE, now);
    expect(keyring.verify(token, AUDIENCE, now)).toEqual({ ok: true, caller: 'edge-gateway' });
  });

  it('refuses tokens of another key, another audience, expired ones and tampered claims', () => {
    const token = keyring.mint('edge-gateway', AUDIENCE, now);
    expect(ServiceKeyring.generate().verify(token, AUDIENCE, now)).toMatchObject({
      ok: false,
      reason: 'bad service token signature',
    });
    expect(keyring.verify(token, 'marquee.auth.v1.AuthService', now)).toMatchObject({
      ok: false,
      reason: 'service token for another service',
    });
    const later = now + (SERVICE_TOKEN_TTL_S + 61) * 1000;
    expect(keyring.verify(token, AUDIENCE, later)).toMatchObject({
      reason: 'service token expired',
    });
    // The caller name changed in the payload, the MAC kept: the signature no longer matches.
    const [version, payload, mac] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as object;
    const forged = Buffer.from(JSON.stringify({ ...claims, iss: 'admin' })).toString('base64url');
    expect(keyring.verify(`${version}.${forged}.${mac}`, AUDIENCE, now)).toMatchObject({
      reason: 'bad service token signature',
    });
    for (const garbage of ['', 'v1', 'v1..', 'v2.a.b', 'v1.a.b.c', 'x'.repeat(5_000)])
      expect(keyring.verify(garbage, AUDIENCE, now).ok).toBe(false);
  });

  it('remembers a verified token, and still checks its audience and lifetime on every call', () => {
    const fresh = ServiceKeyring.generate();
    const token = fresh.mint('cart', AUDIENCE, now);
    expect(fresh.verify(token, AUDIENCE, now)).toEqual({ ok: true, caller: 'cart' });
    // Answered from memory from here on: the same answers as a full check would give.
    expect(fresh.verify(token, AUDIENCE, now + 1_000)).toEqual({ ok: true, caller: 'cart' });
    expect(fresh.verify(token, 'marquee.auth.v1.AuthService', now)).toMatchObject({
      reason: 'service token for another service',
    });
    expect(fresh.verify(token, AUDIENCE, now + (SERVICE_TOKEN_TTL_S + 61) * 1000)).toMatchObject({
      reason: 'service token expired',
    });
    // A refused token is not remembered as good: a tampered MAC stays refused.
    const [version, payload] = token.split('.');
    const tampered = `${version}.${payload}.${Buffer.alloc(32).toString('base64url')}`;
    expect(fresh.verify(tampered, AUDIENCE, now).ok).toBe(false);
    expect(fresh.verify(tampered, AUDIENCE, now).ok).toBe(false);
  });

  it('rotates: a keyring listing the old key second verifies tokens of the old key', () => {
    const oldKey = Buffer.alloc(32, 1).toString('base64');
    const newKey = Buffer.alloc(32, 2).toString('base64');
    const token = ServiceKeyring.parse(oldKey).mint('deals', AUDIENCE, now);
    expect(ServiceKeyring.parse(`${newKey},${oldKey}`).verify(token, AUDIENCE, now).ok).toBe(true);
    expect(ServiceKeyring.parse(newKey).verify(token, AUDIENCE, now).ok).toBe(false);
  });

  it('refuses short or malformed keys, in the config schema too, without echoing them', () => {
    expect(serviceAuthKeyProblem('c2hvcnQ=')).toMatch(/at least 32 random bytes/);
    expect(serviceAuthKeyProblem('not base64 at all!')).toMatch(/base64/);
    expect(serviceAuthKeyProblem(Buffer.alloc(32, 7).toString('base64url'))).toBeUndefined();
    const schema = serviceConfigSchema({ name: 'probe', httpPort: 0, grpcPort: 0 });
    expect(() => loadConfig(schema, { SERVICE_AUTH_KEY: 'c2hvcnQ=' })).toThrow(
      /SERVICE_AUTH_KEY: each key must be base64/,
    );
    expect(() => loadConfig(schema, { SERVICE_AUTH_KEY: 'c2hvcnQ=' })).not.toThrow(/c2hvcnQ/);
  });
});

describe('gRPC servers and clients authenticate services', () => {
  const logger = createLogger({ service: 'auth-test', destination: new PassThrough() });
  const keyring = ServiceKeyring.generate();
  let server: grpc.Server;
  let address: string;
  const seenCallers: Array<string | undefined> = [];

  beforeAll(async () => {
    server = createGrpcServer({
      logger,
      serviceKeyring: keyring,
      // `Fail` stands for an admin RPC: only the edge may call it. `Count` is closed on purpose
      // (no caller), `Slow` declares nothing.
      callers: {
        'marquee.test.v1.Greeter': {
          SayHello: ['edge-gateway', 'deals'],
          Fail: ['edge-gateway'],
          Count: [],
        },
      },
      services: [
        {
          definition: greeterDefinition,
          implementation: {
            sayHello: (
              call: grpc.ServerUnaryCall<{ name: string }, HelloReply>,
              callback: grpc.sendUnaryData<HelloReply>,
            ) => {
              seenCallers.push(callerOf(call));
              callback(null, {
                message: `hello ${call.request.name}`,
                correlationId: '',
                deadlineInMs: 0,
              });
            },
            fail: (_call: unknown, callback: grpc.sendUnaryData<HelloReply>) =>
              callback(null, { message: 'admin done', correlationId: '', deadlineInMs: 0 }),
            slow: (_call: unknown, callback: grpc.sendUnaryData<HelloReply>) => {
              seenCallers.push('slow ran');
              callback(null, { message: 'slow done', correlationId: '', deadlineInMs: 0 });
            },
          },
        },
      ],
    });
    address = `127.0.0.1:${await startGrpcServer(server, { host: '127.0.0.1', port: 0 })}`;
  });
  afterAll(() => stopGrpcServer(server, 1_000));

  const client = (options: { caller?: string; keyring?: ServiceKeyring } = {}) =>
    createGrpcClient(GreeterClientCtor, address, {
      deadlineMs: 10_000,
      serviceKeyring: options.keyring ?? keyring,
      ...(options.caller ? { caller: options.caller } : {}),
    });

  it('refuses a call without a service token (UNAUTHENTICATED) before the handler runs', async () => {
    const raw = new GreeterClientCtor(address, grpc.credentials.createInsecure());
    const before = seenCallers.length;
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      raw.sayHello({ name: 'x' }, (err) => resolve(err!)),
    );
    raw.close();
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe('service authentication failed: no service token');
    expect(seenCallers.length).toBe(before);
  });

  it('refuses a token signed with another key (UNAUTHENTICATED)', async () => {
    const stranger = client({ caller: 'edge-gateway', keyring: ServiceKeyring.generate() });
    await expect(callUnary(stranger, 'sayHello', { name: 'x' })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
    stranger.close();
  });

  it('accepts a platform client, and tells the handler who called (a forged caller header is replaced)', async () => {
    const deals = runAsService('deals', () => client());
    const metadata = new grpc.Metadata();
    metadata.set('x-marquee-caller', 'edge-gateway');
    await expect(
      callUnary(deals, 'sayHello', { name: 'Ada' }, { metadata }),
    ).resolves.toMatchObject({ message: 'hello Ada' });
    expect(seenCallers.at(-1)).toBe('deals');
    deals.close();
  });

  it('applies the per-RPC allow-list: the edge may call the admin RPC, another service may not', async () => {
    const edge: GreeterClient = client({ caller: 'edge-gateway' });
    const deals: GreeterClient = client({ caller: 'deals' });
    await expect(callUnary(edge, 'fail', { mode: '' })).resolves.toMatchObject({
      message: 'admin done',
    });
    await expect(callUnary(deals, 'fail', { mode: '' })).rejects.toMatchObject({
      kind: 'permission_denied',
      message: 'deals is not allowed to call /marquee.test.v1.Greeter/Fail',
    });
    edge.close();
    deals.close();
  });

  it('refuses an RPC that declares no callers to every service, before its handler runs', async () => {
    const before = seenCallers.length;
    for (const caller of ['edge-gateway', 'deals', 'unnamed']) {
      const someone = client({ caller });
      await expect(callUnary(someone, 'slow', { delayMs: 0 })).rejects.toMatchObject({
        kind: 'permission_denied',
        message:
          '/marquee.test.v1.Greeter/Slow declares no callers: it is refused to every service',
      });
      someone.close();
    }
    expect(seenCallers.length).toBe(before);
  });

  it('refuses an RPC closed on purpose (an empty list of callers), streams included', async () => {
    const edge: GreeterClient = client({ caller: 'edge-gateway' });
    const stream = edge.count({ name: 'x' });
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      stream.on('error', resolve);
      stream.on('data', () => undefined);
    });
    expect(error.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(error.details).toBe(
      'edge-gateway is not allowed to call /marquee.test.v1.Greeter/Count',
    );
    edge.close();
  });

  it('refuses a client made outside any service (`unnamed`) an RPC it does not name', async () => {
    const tool = client();
    await expect(callUnary(tool, 'sayHello', { name: 'x' })).rejects.toMatchObject({
      kind: 'permission_denied',
      message: 'unnamed is not allowed to call /marquee.test.v1.Greeter/SayHello',
    });
    tool.close();
  });

  it('leaves grpc.health.v1 open for probes', async () => {
    const health = new HealthClientCtor(address, grpc.credentials.createInsecure());
    await expect(callUnary(health, 'check', { service: '' })).resolves.toEqual({
      status: 'SERVING',
    });
    health.close();
  });

  it('refuses, at start, callers declared for an RPC the service does not have', () => {
    expect(() =>
      createGrpcServer({
        logger,
        serviceKeyring: keyring,
        callers: { 'marquee.test.v1.Greeter': { CreatApp: ['edge-gateway'] } },
        services: [{ definition: greeterDefinition, implementation: {} }],
      }),
    ).toThrow('the callers declared for CreatApp: marquee.test.v1.Greeter has no such RPC');
  });
});

describe('production without SERVICE_AUTH_KEY', () => {
  /** A process that hosts one RPC under NODE_ENV=production through the platform server. */
  const probe = `
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    // The sources are TypeScript imported as '.js' (what tsc emits); Node strips the types.
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.includes('/src/'))
      specifier = specifier.slice(0, -3) + '.ts';
    return next(specifier, context);
  },
});
const { createGrpcServer } = await import(process.argv[1]);
const { createLogger } = await import(process.argv[2]);
try {
  createGrpcServer({
    logger: createLogger({ service: 'probe', level: 'silent' }),
    services: [{ definition: { ping: { path: '/marquee.probe.v1.Probe/Ping' } }, implementation: {} }],
  });
  console.log('started');
} catch (error) {
  console.log('refused: ' + error.message);
}
`;
  const run = (env: NodeJS.ProcessEnv) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        probe,
        fileURLToPath(new URL('../../src/grpc/index.ts', import.meta.url)),
        fileURLToPath(new URL('../../src/logger/index.ts', import.meta.url)),
      ],
      { encoding: 'utf8', timeout: 60_000, env },
    ).stdout.trim();

  it('refuses to host an RPC, and accepts the key from the environment', () => {
    const { SERVICE_AUTH_KEY: _key, SERVICE_AUTH_KEY_FILE: _file, ...env } = process.env;
    expect(run({ ...env, NODE_ENV: 'production' })).toBe(
      'refused: production needs SERVICE_AUTH_KEY (or SERVICE_AUTH_KEY_FILE): the key Marquee services sign and check their gRPC calls with',
    );
    expect(
      run({
        ...env,
        NODE_ENV: 'production',
        SERVICE_AUTH_KEY: Buffer.alloc(32, 3).toString('base64'),
      }),
    ).toBe('started');
    expect(run({ ...env, NODE_ENV: 'development' })).toBe('started');
  }, 90_000);
});

import { PassThrough } from 'node:stream';
import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ERROR_KINDS } from '../../src/errors/index.js';
import {
  ERROR_DETAILS_KEY,
  callUnary,
  connectionAgeOptions,
  createGrpcClient,
  createGrpcServer,
  detachedFromCall,
  fromGrpcError,
  grpcTarget,
  kindFromGrpcStatus,
  startGrpcServer,
  stopGrpcServer,
  toGrpcError,
  toGrpcStatus,
} from '../../src/grpc/index.js';
import {
  createLogger,
  currentCorrelationId,
  runWithCorrelationId,
} from '../../src/logger/index.js';
import {
  GreeterClientCtor,
  HealthClientCtor,
  greeterCallers,
  greeterDefinition,
  type FailRequest,
  type GreeterClient,
  type HelloReply,
  type HelloRequest,
  type SlowRequest,
} from './greeter.js';

type Unary<Req, Res> = (
  call: grpc.ServerUnaryCall<Req, Res>,
  callback: grpc.sendUnaryData<Res>,
) => void;

function reply(
  call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
  message: string,
): HelloReply {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  return {
    message,
    correlationId: currentCorrelationId() ?? '',
    deadlineInMs: Number.isFinite(deadlineMs) ? Math.round(deadlineMs - Date.now()) : -1,
  };
}

// Handlers written the way services write them: async, throwing application errors.
const implementation = {
  sayHello: (async (call, callback) => {
    await sleep(1);
    callback(null, reply(call, `hello ${call.request.name}`));
  }) as Unary<HelloRequest, HelloReply>,
  fail: (async (call) => {
    await sleep(1);
    switch (call.request.mode) {
      case 'not_found':
        throw new AppError('not_found', 'event e-404 not found', {
          details: { eventId: 'e-404', venue: 'Zürich' },
        });
      case 'domain':
        // A domain error that knows nothing of the platform.
        throw Object.assign(new Error('seat A1 is already held'), { kind: 'failed_precondition' });
      case 'callback':
        throw new AppError('permission_denied', 'not your cart');
      default:
        throw new Error('mongo: auth failed for user admin password=hunter2');
    }
  }) as Unary<FailRequest, HelloReply>,
  slow: (async (call, callback) => {
    // Gives up when the call is cancelled (its deadline passed), so no timer outlives the test.
    const cancelled = new AbortController();
    call.on('cancelled', () => cancelled.abort());
    try {
      await sleep(call.request.delayMs, undefined, { signal: cancelled.signal });
    } catch {
      return;
    }
    callback(null, reply(call, 'late'));
  }) as Unary<SlowRequest, HelloReply>,
  count: async (call: grpc.ServerWritableStream<HelloRequest, HelloReply>) => {
    call.write(reply(call, 'one'));
    await sleep(1);
    throw new AppError('resource_exhausted', 'only one for you');
  },
};

const logLines: Array<Record<string, unknown>> = [];
const logStream = new PassThrough();
logStream.on('data', (chunk: Buffer) => {
  for (const line of chunk.toString('utf8').split('\n'))
    if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
});
const logger = createLogger({ service: 'grpc-test', destination: logStream, level: 'debug' });

/** The client's default deadline: long enough that no call of this suite meets it on a loaded machine. */
const DEFAULT_DEADLINE_MS = 10_000;

let server: grpc.Server;
let address: string;
let client: GreeterClient;

beforeAll(async () => {
  server = createGrpcServer({
    logger,
    callers: greeterCallers,
    services: [
      {
        definition: greeterDefinition,
        implementation: implementation as grpc.UntypedServiceImplementation,
      },
    ],
  });
  const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
  address = `127.0.0.1:${port}`;
  client = createGrpcClient(GreeterClientCtor, address, {
    deadlineMs: DEFAULT_DEADLINE_MS,
    logger,
  });
});

/** The error grpc-js itself hands the callback of a Fail call (no platform mapping). */
const rawFailure = (mode: string) =>
  new Promise<grpc.ServiceError>((resolve) =>
    client.fail({ mode }, new grpc.Metadata(), {}, (error) => resolve(error as grpc.ServiceError)),
  );

afterAll(async () => {
  client?.close();
  await stopGrpcServer(server, 1_000);
});

describe('createGrpcServer + createGrpcClient', () => {
  it('answers a unary call through callUnary', async () => {
    const response = await callUnary(client, 'sayHello', { name: 'Ada' });

    expect(response.message).toBe('hello Ada');
  });

  it('reports SERVING for the server and for each service on grpc.health.v1', async () => {
    const health = new HealthClientCtor(address, grpc.credentials.createInsecure());
    try {
      const overall = await callUnary(health, 'check', { service: '' });
      const greeter = await callUnary(health, 'check', { service: 'marquee.test.v1.Greeter' });
      const unknown = callUnary(health, 'check', { service: 'marquee.nope.v1.Nope' });

      expect(overall.status).toBe('SERVING');
      expect(greeter.status).toBe('SERVING');
      await expect(unknown).rejects.toMatchObject({ kind: 'not_found' });
    } finally {
      health.close();
    }
  });

  it('maps a not_found application error to NOT_FOUND with its message and details', async () => {
    const raw = await rawFailure('not_found');

    expect(raw.code).toBe(grpc.status.NOT_FOUND);
    expect(raw.details).toBe('event e-404 not found');
    expect(JSON.parse(String(raw.metadata.get(ERROR_DETAILS_KEY)[0]))).toEqual({
      eventId: 'e-404',
      venue: 'Zürich',
    });

    const sut = fromGrpcError(raw);
    expect(sut).toBeInstanceOf(AppError);
    expect(sut.kind).toBe('not_found');
    expect(sut.message).toBe('event e-404 not found');
    expect(sut.details).toEqual({ eventId: 'e-404', venue: 'Zürich' });
  });

  it('rejects callUnary with the application error, for structural domain errors too', async () => {
    await expect(callUnary(client, 'fail', { mode: 'domain' })).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: 'seat A1 is already held',
    });
    await expect(callUnary(client, 'fail', { mode: 'callback' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
  });

  it('turns an unexpected exception into INTERNAL without leaking it, and logs it in full', async () => {
    const raw = await rawFailure('crash');

    expect(raw.code).toBe(grpc.status.INTERNAL);
    expect(raw.details).toBe('internal error');
    expect(JSON.stringify(raw)).not.toContain('hunter2');
    expect(raw.metadata.get(ERROR_DETAILS_KEY)).toEqual([]);
    expect(logLines).toContainEqual(
      expect.objectContaining({
        msg: 'grpc handler failed',
        grpc_method: '/marquee.test.v1.Greeter/Fail',
        err: expect.objectContaining({
          message: expect.stringContaining('hunter2'),
          stack: expect.any(String),
        }),
      }),
    );
  });

  it('ends a server stream with the status of the error the handler threw', async () => {
    const stream = client.count({ name: 'x' });
    const received: HelloReply[] = [];
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      stream.on('data', (message: HelloReply) => received.push(message));
      stream.on('error', resolve);
    });

    expect(received.map((message) => message.message)).toEqual(['one']);
    expect(error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error.details).toBe('only one for you');
  });

  it('carries the caller’s correlation id into the handler', async () => {
    const response = await runWithCorrelationId('corr-from-edge', () =>
      callUnary(client, 'sayHello', { name: 'x' }),
    );

    expect(response.correlationId).toBe('corr-from-edge');
  });

  it('gives a call without a correlation id a fresh one on the server', async () => {
    const first = await callUnary(client, 'sayHello', { name: 'x' });
    const second = await callUnary(client, 'sayHello', { name: 'x' });

    expect(first.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.correlationId).not.toBe(first.correlationId);
  });

  it('applies the client’s default deadline when the caller sets none', async () => {
    const before = Date.now();
    const response = await callUnary(client, 'sayHello', { name: 'x' });
    const took = Date.now() - before;

    // What the handler had left: the default deadline less the time the call took to reach it.
    expect(response.deadlineInMs).toBeGreaterThanOrEqual(DEFAULT_DEADLINE_MS - took - 5);
    expect(response.deadlineInMs).toBeLessThanOrEqual(DEFAULT_DEADLINE_MS);
  });

  it('fails a call that outlives its deadline with deadline_exceeded', async () => {
    const started = Date.now();

    await expect(
      callUnary(client, 'slow', { delayMs: 10_000 }, { deadlineMs: 100 }),
    ).rejects.toMatchObject({
      kind: 'deadline_exceeded',
    });
    // Failed at the deadline, long before the handler would have answered (however loaded the machine).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('logs every call with its method, code and duration', async () => {
    await callUnary(client, 'sayHello', { name: 'log me' });

    expect(logLines).toContainEqual(
      expect.objectContaining({
        msg: 'grpc call',
        grpc_method: '/marquee.test.v1.Greeter/SayHello',
        grpc_code: 'OK',
        duration_ms: expect.any(Number),
      }),
    );
    expect(logLines).toContainEqual(
      expect.objectContaining({
        msg: 'grpc call',
        grpc_method: '/marquee.test.v1.Greeter/Fail',
        grpc_code: 'NOT_FOUND',
      }),
    );
  });
});

describe('the client’s log of failed calls', () => {
  it('warns of call failures once a second per method and code, and of domain answers only at debug', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const warnOnly = createGrpcClient(GreeterClientCtor, address, {
      deadlineMs: DEFAULT_DEADLINE_MS,
      logger: createLogger({ service: 'grpc-client-test', destination: stream, level: 'warn' }),
    });
    try {
      // Answers of the peer's domain: the caller's business, not a failure of the call.
      for (let i = 0; i < 3; i++) {
        await expect(callUnary(warnOnly, 'fail', { mode: 'not_found' })).rejects.toMatchObject({
          kind: 'not_found',
        });
      }
      // Calls that failed: the first is written, the next ones of the same second counted.
      for (let i = 0; i < 3; i++) {
        await expect(
          callUnary(warnOnly, 'slow', { delayMs: 10_000 }, { deadlineMs: 20 }),
        ).rejects.toMatchObject({ kind: 'deadline_exceeded' });
      }
      await setImmediatePromise();
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          msg: 'grpc call failed',
          grpc_method: '/marquee.test.v1.Greeter/Slow',
          grpc_code: 'DEADLINE_EXCEEDED',
        }),
      ]);
      expect(lines[0]).not.toHaveProperty('suppressed_since_last');
    } finally {
      warnOnly.close();
    }
  });

  it('formats a failed call’s stack only when it is read, with the caller’s frames (grpc-js patch)', async () => {
    const raw = await rawFailure('not_found');

    // Patched (patches/@grpc__grpc-js@1.14.7.patch): an accessor that formats on first read.
    // Unpatched, grpc-js formats two stacks for every error status, read or not.
    expect(typeof Object.getOwnPropertyDescriptor(raw, 'stack')?.get).toBe('function');
    expect(raw.code).toBe(grpc.status.NOT_FOUND);
    expect(raw.stack).toMatch(/^Error: 5 NOT_FOUND: event e-404 not found\n/);
    expect(raw.stack).toContain('\nfor call at\n');
    expect(raw.stack).toContain('grpc.unit.test.ts');
    raw.stack = 'replaced';
    expect(raw.stack).toBe('replaced');
  });

  it('writes a domain answer at debug', async () => {
    await expect(callUnary(client, 'fail', { mode: 'callback' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    await setImmediatePromise();
    expect(logLines).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        msg: 'grpc call answered with an error status',
        grpc_method: '/marquee.test.v1.Greeter/Fail',
        grpc_code: 'PERMISSION_DENIED',
      }),
    );
  });
});

describe('maxInFlight', () => {
  it('refuses a call beyond the bound at once, unavailable overloaded, and admits again once one ends', async () => {
    const bounded = createGrpcClient(GreeterClientCtor, address, {
      deadlineMs: DEFAULT_DEADLINE_MS,
      maxInFlight: 1,
    });
    try {
      const slow = callUnary(bounded, 'slow', { delayMs: 300 });
      await expect(callUnary(bounded, 'sayHello', { name: 'second' })).rejects.toMatchObject({
        kind: 'unavailable',
        details: { reason: 'overloaded', retryAfterMs: expect.any(Number) },
      });
      expect((await slow).message).toBe('late');
      expect((await callUnary(bounded, 'sayHello', { name: 'third' })).message).toBe('hello third');
      // A failed call frees its place too.
      await expect(callUnary(bounded, 'fail', { mode: 'not_found' })).rejects.toMatchObject({
        kind: 'not_found',
      });
      expect((await callUnary(bounded, 'sayHello', { name: 'fourth' })).message).toBe(
        'hello fourth',
      );
    } finally {
      bounded.close();
    }
  });
});

describe('waitForReady', () => {
  /** A server on a port nobody listens on yet: what a replica looks like while it restarts. */
  const freePort = async () => {
    const probe = createGrpcServer({ logger, services: [] });
    const port = await startGrpcServer(probe, { host: '127.0.0.1', port: 0 });
    await stopGrpcServer(probe, 1_000);
    return port;
  };
  const greeterServer = () =>
    createGrpcServer({
      logger,
      callers: greeterCallers,
      services: [
        {
          definition: greeterDefinition,
          implementation: implementation as grpc.UntypedServiceImplementation,
        },
      ],
    });

  it('waits for a server that comes back within the deadline; without it, fails at once', async () => {
    const port = await freePort();
    const restarting = createGrpcClient(GreeterClientCtor, `127.0.0.1:${port}`, {
      deadlineMs: DEFAULT_DEADLINE_MS,
    });
    const late = greeterServer();
    try {
      // Nothing listens: a call that does not wait fails unavailable, and leaves the channel in
      // its reconnect backoff, where a call that does not wait keeps failing at once.
      await expect(callUnary(restarting, 'sayHello', { name: 'now' })).rejects.toMatchObject({
        kind: 'unavailable',
      });
      const waiting = callUnary(restarting, 'sayHello', { name: 'later' }, { waitForReady: true });
      await sleep(300);
      await startGrpcServer(late, { host: '127.0.0.1', port });
      expect((await waiting).message).toBe('hello later');
    } finally {
      restarting.close();
      await stopGrpcServer(late, 1_000);
    }
  });

  it('keeps the options a caller set on its own metadata', async () => {
    const metadata = new grpc.Metadata({ idempotentRequest: true });
    await callUnary(client, 'sayHello', { name: 'm' }, { metadata, waitForReady: true });
    expect(metadata.getOptions()).toMatchObject({ idempotentRequest: true, waitForReady: true });
  });
});

describe('deadline propagation', () => {
  // A front service whose handler calls the greeter above, as cart calls 3p-connector: what the
  // greeter reports is the deadline the inner call carried.
  let front: grpc.Server;
  let frontClient: GreeterClient;
  beforeAll(async () => {
    front = createGrpcServer({
      logger,
      callers: greeterCallers,
      services: [
        {
          definition: greeterDefinition,
          implementation: {
            sayHello: (async (call, callback) => {
              const inner = () => callUnary(client, 'sayHello', { name: call.request.name });
              callback(
                null,
                await (call.request.name === 'detached' ? detachedFromCall(inner) : inner()),
              );
            }) as Unary<HelloRequest, HelloReply>,
          } as grpc.UntypedServiceImplementation,
        },
      ],
    });
    const port = await startGrpcServer(front, { host: '127.0.0.1', port: 0 });
    frontClient = createGrpcClient(GreeterClientCtor, `127.0.0.1:${port}`, {
      deadlineMs: DEFAULT_DEADLINE_MS,
    });
  });
  afterAll(async () => {
    frontClient?.close();
    await stopGrpcServer(front, 1_000);
  });

  it('gives a call made while serving one no more time than its caller has left', async () => {
    // The inner client's own default is 10 s; the outer caller allows 3 s.
    const response = await callUnary(
      frontClient,
      'sayHello',
      { name: 'nested' },
      { deadlineMs: 3_000 },
    );

    expect(response.deadlineInMs).toBeGreaterThan(0);
    expect(response.deadlineInMs).toBeLessThanOrEqual(3_000);
  });

  it('lets work detached from the call keep its own deadline', async () => {
    const response = await callUnary(
      frontClient,
      'sayHello',
      { name: 'detached' },
      { deadlineMs: 3_000 },
    );

    expect(response.deadlineInMs).toBeGreaterThan(3_000);
  });
});

describe('stopGrpcServer', () => {
  it('reports NOT_SERVING to watchers, then shuts down within the timeout', async () => {
    const own = createGrpcServer({
      logger,
      callers: greeterCallers,
      services: [
        {
          definition: greeterDefinition,
          implementation: implementation as grpc.UntypedServiceImplementation,
        },
      ],
    });
    const port = await startGrpcServer(own, { host: '127.0.0.1', port: 0 });
    const health = new HealthClientCtor(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const statuses: string[] = [];
    const watch = health.watch({ service: 'marquee.test.v1.Greeter' });
    watch.on('data', (message: { status: string }) => statuses.push(message.status));
    watch.on('error', () => undefined); // cancelled by the forced shutdown
    await expect.poll(() => statuses, { timeout: 10_000 }).toEqual(['SERVING']);

    const started = Date.now();
    // The open Watch stream keeps tryShutdown waiting, so this exercises the forced path.
    const stopping = stopGrpcServer(own, 300);

    // The watcher may read the update only after the forced shutdown on a loaded machine: wait for it.
    await expect.poll(() => statuses, { timeout: 10_000 }).toEqual(['SERVING', 'NOT_SERVING']);
    await stopping;
    // Forced at the timeout rather than waiting for the Watch stream for ever.
    expect(Date.now() - started).toBeLessThan(5_000);
    health.close();
  });
});

describe('status mapping', () => {
  it('round-trips every kind through its status code', () => {
    for (const kind of ERROR_KINDS) {
      expect(kindFromGrpcStatus(toGrpcStatus(kind))).toBe(kind);
    }
  });

  it('folds codes without a kind of their own', () => {
    expect(kindFromGrpcStatus(grpc.status.UNKNOWN)).toBe('internal');
    expect(kindFromGrpcStatus(grpc.status.UNIMPLEMENTED)).toBe('internal');
    expect(kindFromGrpcStatus(grpc.status.OUT_OF_RANGE)).toBe('invalid_argument');
    expect(kindFromGrpcStatus(grpc.status.CANCELLED)).toBe('aborted');
  });

  it('hides the message of an internal application error', () => {
    const sut = toGrpcError(new AppError('internal', 'index corrupted at /var/lib/x'));

    expect(sut.code).toBe(grpc.status.INTERNAL);
    expect(sut.details).toBe('internal error');
  });

  it('answers a passing database or broker failure UNAVAILABLE, without its text', () => {
    const network = Object.assign(new Error('connection 3 to 10.0.0.7:27017 closed'), {
      name: 'MongoNetworkError',
    });

    const sut = toGrpcError(network);

    expect(sut.code).toBe(grpc.status.UNAVAILABLE);
    expect(sut.details).not.toContain('10.0.0.7');
    expect(toGrpcError(new TypeError('x is undefined')).code).toBe(grpc.status.INTERNAL);
  });

  it('passes a downstream status on by its code', () => {
    const downstream = Object.assign(new Error('14 UNAVAILABLE: partner down'), {
      code: grpc.status.UNAVAILABLE,
      details: 'partner down',
      metadata: new grpc.Metadata(),
    });

    const sut = toGrpcError(downstream);

    expect(sut.code).toBe(grpc.status.UNAVAILABLE);
    expect(sut.details).toBe('partner down');
  });

  it('turns a stream the connection lost into unavailable, a server INTERNAL stays internal', () => {
    const lost = Object.assign(new Error('13 INTERNAL'), {
      code: grpc.status.INTERNAL,
      details:
        'Received RST_STREAM with code 2 triggered by internal client error: Session closed with error code 2',
      metadata: new grpc.Metadata(),
    });
    expect(fromGrpcError(lost).kind).toBe('unavailable');
    const answered = Object.assign(new Error('13 INTERNAL'), {
      code: grpc.status.INTERNAL,
      details: 'Internal server error',
      metadata: new grpc.Metadata(),
    });
    expect(fromGrpcError(answered).kind).toBe('internal');
  });

  it('turns anything that is no gRPC or application error into internal', () => {
    expect(fromGrpcError(new TypeError('x is undefined')).kind).toBe('internal');
    expect(fromGrpcError('a string').kind).toBe('internal');
  });
});

describe('balancing over replicas', () => {
  it('turns an address into a grpc-js target', () => {
    expect(grpcTarget('cart:50055')).toBe('cart:50055');
    expect(grpcTarget('dns:///cart-grpc.shop.svc.cluster.local:50055')).toBe(
      'dns:///cart-grpc.shop.svc.cluster.local:50055',
    );
    expect(grpcTarget('127.0.0.1:1, 127.0.0.1:2')).toBe('ipv4:127.0.0.1:1,127.0.0.1:2');
    expect(grpcTarget('[::1]:1,[::1]:2')).toBe('ipv6:[::1]:1,[::1]:2');
    expect(() => grpcTarget('cart-a:1,cart-b:2')).toThrow(/headless Service/);
    expect(() => grpcTarget(' , ')).toThrow(/no gRPC address/);
  });

  it('spreads one client’s calls over every address it is given (round_robin)', async () => {
    const replica = async (name: string) => {
      const replicaServer = createGrpcServer({
        logger,
        callers: greeterCallers,
        services: [
          {
            definition: greeterDefinition,
            implementation: {
              ...implementation,
              sayHello: ((call, callback) => callback(null, reply(call, name))) as Unary<
                HelloRequest,
                HelloReply
              >,
            } as grpc.UntypedServiceImplementation,
          },
        ],
      });
      const port = await startGrpcServer(replicaServer, { host: '127.0.0.1', port: 0 });
      return { replicaServer, port };
    };
    const a = await replica('a');
    const b = await replica('b');
    const both = createGrpcClient(GreeterClientCtor, `127.0.0.1:${a.port},127.0.0.1:${b.port}`, {
      deadlineMs: DEFAULT_DEADLINE_MS,
    });
    try {
      const answeredBy = new Set<string>();
      for (let call = 0; call < 10; call++)
        answeredBy.add((await callUnary(both, 'sayHello', { name: 'x' })).message);
      expect([...answeredBy].sort()).toEqual(['a', 'b']);
    } finally {
      both.close();
      await stopGrpcServer(a.replicaServer, 1_000);
      await stopGrpcServer(b.replicaServer, 1_000);
    }
  });

  it('caps connection age on servers unless turned off', async () => {
    expect(connectionAgeOptions()).toEqual({
      'grpc.max_connection_age_ms': 300_000,
      'grpc.max_connection_age_grace_ms': 30_000,
    });
    expect(connectionAgeOptions({ maxMs: 0, graceMs: 5 })).toEqual({});
    // A connection the server ages out is replaced without failing the client's next calls.
    const aging = createGrpcServer({
      logger,
      callers: greeterCallers,
      serverOptions: connectionAgeOptions({ maxMs: 100, graceMs: 50 }),
      services: [
        {
          definition: greeterDefinition,
          implementation: implementation as grpc.UntypedServiceImplementation,
        },
      ],
    });
    const port = await startGrpcServer(aging, { host: '127.0.0.1', port: 0 });
    const agingClient = createGrpcClient(GreeterClientCtor, `127.0.0.1:${port}`, {
      deadlineMs: DEFAULT_DEADLINE_MS,
    });
    try {
      for (let call = 0; call < 4; call++) {
        expect((await callUnary(agingClient, 'sayHello', { name: 'again' })).message).toBe(
          'hello again',
        );
        await sleep(150);
      }
    } finally {
      agingClient.close();
      await stopGrpcServer(aging, 1_000);
    }
  });
});

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { publishingV1 } from '@marquee/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger/create-logger.js';
import { addReflection, reflectionByDefault } from '../../src/grpc/reflection.js';
import { createGrpcServer, startGrpcServer, stopGrpcServer } from '../../src/grpc/server.js';

const logger = createLogger({ service: 'reflection-test', level: 'silent' });

/** A reflection client as grpcurl has it: the reflection protos only, nothing of the server's. */
function reflectionClient(address: string, version: 'v1' | 'v1alpha') {
  const require = createRequire(import.meta.url);
  const protoDir = join(dirname(require.resolve('@grpc/reflection')), '..', 'proto');
  const definition = protoLoader.loadSync(`grpc/reflection/${version}/reflection.proto`, {
    includeDirs: [protoDir],
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: {
      reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }>;
    };
  };
  const Client = loaded.grpc.reflection[version]!.ServerReflection;
  return new Client(address, grpc.credentials.createInsecure());
}

interface ReflectionAnswer {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number };
}

/** One request on the reflection stream, its one answer. */
function ask(client: grpc.Client, request: Record<string, string>): Promise<ReflectionAnswer> {
  return new Promise((resolve, reject) => {
    const call = (
      client as unknown as { serverReflectionInfo(): grpc.ClientDuplexStream<unknown, unknown> }
    ).serverReflectionInfo();
    call.on('data', (answer: ReflectionAnswer) => {
      resolve(answer);
      call.end();
    });
    call.on('error', reject);
    call.write(request);
  });
}

const servers: grpc.Server[] = [];
const clients: grpc.Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => stopGrpcServer(server, 1_000)));
});

async function serve(reflection: boolean | undefined) {
  const server = createGrpcServer({
    logger,
    services: [{ definition: publishingV1.PublisherServiceService, implementation: {} }],
    ...(reflection === undefined ? {} : { reflection }),
  });
  servers.push(server);
  const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
  return `127.0.0.1:${port}`;
}

describe('gRPC server reflection', () => {
  it.each(['v1', 'v1alpha'] as const)(
    'lists the services of a running server to a %s reflection client without a service token',
    async (version) => {
      const client = reflectionClient(await serve(true), version);
      clients.push(client);

      const answer = await ask(client, { listServices: '*' });

      expect(answer.listServicesResponse?.service.map((s) => s.name).sort()).toEqual([
        'grpc.health.v1.Health',
        'marquee.publishing.v1.PublisherService',
      ]);
    },
  );

  it('describes a service with its methods, from the repository .proto files', async () => {
    const client = reflectionClient(await serve(true), 'v1');
    clients.push(client);

    const answer = await ask(client, {
      fileContainingSymbol: 'marquee.publishing.v1.PublisherService',
    });

    const files = answer.fileDescriptorResponse?.fileDescriptorProto ?? [];
    expect(files.length).toBeGreaterThan(0);
    const text = Buffer.concat(files).toString('latin1');
    for (const method of ['PublishEvent', 'ListEvents', 'GetEvent']) expect(text).toContain(method);
  });

  it('is not served when turned off', async () => {
    const client = reflectionClient(await serve(false), 'v1');
    clients.push(client);

    const failure = await ask(client, { listServices: '*' }).catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: grpc.status.UNIMPLEMENTED });
  });

  it('serves without reflection, and says so, where there are no .proto sources', () => {
    const warnings: unknown[] = [];
    const added: unknown[] = [];
    const served = addReflection(
      { addService: (...args: unknown[]) => void added.push(args) },
      {
        services: ['marquee.publishing.v1.PublisherService'],
        logger: { ...logger, warn: (...args: unknown[]) => void warnings.push(args) } as never,
        protoRoot: '/nonexistent/proto/',
      },
    );
    expect(served).toBe(false);
    expect(added).toEqual([]);
    expect(warnings).toHaveLength(1);
  });
});

describe('reflectionByDefault', () => {
  it.each([
    [{}, true],
    [{ NODE_ENV: 'development' }, true],
    [{ NODE_ENV: 'production' }, false],
    [{ NODE_ENV: 'production', GRPC_REFLECTION: 'true' }, true],
    [{ NODE_ENV: 'production', GRPC_REFLECTION: '1' }, true],
    [{ GRPC_REFLECTION: 'false' }, false],
    [{ GRPC_REFLECTION: 'FALSE' }, false],
    [{ GRPC_REFLECTION: '0' }, false],
    [{ NODE_ENV: 'production', GRPC_REFLECTION: '' }, false],
  ])('is on by default in development and off in production: %o → %s', (env, expected) => {
    expect(reflectionByDefault(env as NodeJS.ProcessEnv)).toBe(expected);
  });

  it('refuses a value that is neither true nor false', () => {
    expect(() => reflectionByDefault({ GRPC_REFLECTION: 'yes' })).toThrow(/GRPC_REFLECTION/);
  });
});

import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';

export interface HelloRequest {
  name: string;
}
export interface HelloReply {
  message: string;
  correlationId: string;
  deadlineInMs: number;
}
export interface FailRequest {
  mode: string;
}
export interface SlowRequest {
  delayMs: number;
}

type Callback<Res> = (error: grpc.ServiceError | null, response: Res) => void;

/** The client interface ts-proto would generate for the fixture service (three overloads a method). */
export interface GreeterClient extends grpc.Client {
  sayHello(request: HelloRequest, callback: Callback<HelloReply>): grpc.ClientUnaryCall;
  sayHello(
    request: HelloRequest,
    metadata: grpc.Metadata,
    callback: Callback<HelloReply>,
  ): grpc.ClientUnaryCall;
  sayHello(
    request: HelloRequest,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    callback: Callback<HelloReply>,
  ): grpc.ClientUnaryCall;
  fail(request: FailRequest, callback: Callback<HelloReply>): grpc.ClientUnaryCall;
  fail(
    request: FailRequest,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    callback: Callback<HelloReply>,
  ): grpc.ClientUnaryCall;
  slow(
    request: SlowRequest,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    callback: Callback<HelloReply>,
  ): grpc.ClientUnaryCall;
  count(
    request: HelloRequest,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<HelloReply>;
}

const packageDefinition = loadSync(
  fileURLToPath(new URL('./fixtures/greeter.proto', import.meta.url)),
  {
    longs: Number,
    defaults: true,
  },
);
const loaded = grpc.loadPackageDefinition(packageDefinition) as unknown as {
  marquee: { test: { v1: { Greeter: grpc.ServiceClientConstructor } } };
};

export const GreeterClientCtor = loaded.marquee.test.v1.Greeter as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => GreeterClient;
export const greeterDefinition: grpc.ServiceDefinition = loaded.marquee.test.v1.Greeter.service;

/** Every RPC of the greeter open to the tests' clients, made outside any service (`unnamed`). */
export const greeterCallers = {
  'marquee.test.v1.Greeter': {
    SayHello: ['unnamed'],
    Fail: ['unnamed'],
    Slow: ['unnamed'],
    Count: ['unnamed'],
  },
};

export interface HealthClient extends grpc.Client {
  check(
    request: { service: string },
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    callback: Callback<{ status: string }>,
  ): grpc.ClientUnaryCall;
  watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

export const HealthClientCtor = grpc.makeGenericClientConstructor(
  healthService as unknown as grpc.ServiceDefinition,
  'Health',
) as unknown as new (address: string, credentials: grpc.ChannelCredentials) => HealthClient;

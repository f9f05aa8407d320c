import {
  Metadata,
  Server,
  ServerCredentials,
  credentials,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthServiceClient,
  AuthServiceService,
  AppStatus,
  type AuthServiceServer,
  type ValidateApiKeyRequest,
  type ValidateApiKeyResponse,
} from '../src/auth-v1.js';
import { PublisherServiceService } from '../src/publishing-v1.js';

// The generated grpc-js definitions over a real loopback connection: paths, serialisation and the
// Date / int64 / enum mappings must survive the trip exactly as services will use them.

const validateApiKey = (
  call: ServerUnaryCall<ValidateApiKeyRequest, ValidateApiKeyResponse>,
  callback: sendUnaryData<ValidateApiKeyResponse>,
): void => {
  callback(null, {
    valid: call.request.apiKey === 'good-key',
    appId: 'app-1',
    status: AppStatus.APP_STATUS_ACTIVE,
    quota: { limit: 5000, windowMs: 86_400_000 },
    clientId: 'cid-1',
    heldTicketsPerEvent: 20,
  });
};

const notImplemented = (_call: unknown, callback: sendUnaryData<never>): void => {
  callback({ code: 12, details: 'not implemented in this test' }, null);
};

const impl: AuthServiceServer = {
  validateApiKey,
  introspectToken: notImplemented,
  checkRateLimit: notImplemented,
  createApp: notImplemented,
  createFan: notImplemented,
  revokeGrant: notImplemented,
  deleteFan: notImplemented,
  setAppAccess: notImplemented,
  getAppAccess: notImplemented,
  getApp: notImplemented,
  setAppOAuth: notImplemented,
  setAppQuota: notImplemented,
  resolveTrackingId: notImplemented,
};

describe('generated gRPC services', () => {
  const server = new Server();
  let sut: AuthServiceClient;

  beforeAll(async () => {
    server.addService(AuthServiceService, impl);
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      );
    });
    sut = new AuthServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(() => {
    sut.close();
    server.forceShutdown();
  });

  it('uses the fully qualified proto method paths', () => {
    expect(AuthServiceService.validateApiKey.path).toBe(
      '/marquee.auth.v1.AuthService/ValidateApiKey',
    );
    expect(PublisherServiceService.publishEvent.path).toBe(
      '/marquee.publishing.v1.PublisherService/PublishEvent',
    );
  });

  it('calls a unary RPC end to end', async () => {
    const response = await new Promise<ValidateApiKeyResponse>((resolve, reject) => {
      sut.validateApiKey(
        { apiKey: 'good-key' },
        new Metadata(),
        { deadline: Date.now() + 5000 },
        (err, res) => (err ? reject(err) : resolve(res)),
      );
    });

    expect(response).toEqual({
      valid: true,
      appId: 'app-1',
      status: AppStatus.APP_STATUS_ACTIVE,
      quota: { limit: 5000, windowMs: 86_400_000 },
      clientId: 'cid-1',
      heldTicketsPerEvent: 20,
    });
  });

  it('carries status codes of failed calls', async () => {
    const error = await new Promise<{ code?: number }>((resolve) => {
      sut.createFan(
        { email: 'a@b.example', password: 'pw' },
        new Metadata(),
        { deadline: Date.now() + 5000 },
        (err) => resolve(err ?? {}),
      );
    });

    expect(error.code).toBe(12);
  });
});

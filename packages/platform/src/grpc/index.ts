export {
  ERROR_DETAILS_KEY,
  GrpcStatusError,
  fromGrpcError,
  kindFromGrpcStatus,
  toGrpcError,
  toGrpcStatus,
} from './status.js';
export {
  DEFAULT_MAX_CONNECTION_AGE_GRACE_MS,
  DEFAULT_MAX_CONNECTION_AGE_MS,
  connectionAgeOptions,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
  type CreateGrpcServerOptions,
  type GrpcServiceRegistration,
} from './server.js';
export {
  assertInFlightRoom,
  OVERLOADED_REASON,
  callUnary,
  createGrpcClient,
  grpcTarget,
  type CallUnaryOptions,
  type CreateGrpcClientOptions,
  type GrpcClientConstructor,
  type UnaryMethodName,
} from './client.js';
export { OnePerTurn } from './one-per-turn.js';
export { remainingDeadline, unary, type UnaryCallInfo, type UnaryOptions } from './unary.js';
export {
  callerGaveUp,
  detachedFromCall,
  incomingCall,
  propagatedDeadline,
  type IncomingCall,
} from './call-context.js';
export {
  SERVICE_CALLER_METADATA,
  SERVICE_TOKEN_METADATA,
  ServiceAuthKeyMissingError,
  UNNAMED_CALLER,
  callerOf,
  configureServiceAuth,
  currentServiceName,
  runAsService,
  serviceKeyring,
  serviceTokenFor,
  type RpcCallers,
} from './service-auth.js';
export {
  SERVICE_TOKEN_TTL_S,
  ServiceKeyring,
  generateServiceAuthKey,
  serviceAuthKeyProblem,
} from './service-token.js';

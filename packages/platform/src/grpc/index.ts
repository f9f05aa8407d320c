export {
  ERROR_DETAILS_KEY,
  GrpcStatusError,
  fromGrpcError,
  kindFromGrpcStatus,
  toGrpcError,
  toGrpcStatus,
} from './status.js';
export {
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
  type CreateGrpcServerOptions,
  type GrpcServiceRegistration,
} from './server.js';
export {
  callUnary,
  createGrpcClient,
  type CallUnaryOptions,
  type CreateGrpcClientOptions,
  type GrpcClientConstructor,
  type UnaryMethodName,
} from './client.js';
export { OnePerTurn } from './one-per-turn.js';

export {
  createHttpServer,
  maskSecretQueryParams,
  listenHttp,
  setFrameworkErrorHandler,
  type CreateHttpServerOptions,
  type FrameworkErrorHandler,
  type ReadinessCheck,
} from './create-http-server.js';
export { clientAddress, TrustedProxies, trustedProxiesSetting } from './client-address.js';

export {
  createHttpServer,
  maskSecretQueryParams,
  listenHttp,
  type CreateHttpServerOptions,
  type ReadinessCheck,
} from './create-http-server.js';
export { clientAddress, TrustedProxies, trustedProxiesSetting } from './client-address.js';

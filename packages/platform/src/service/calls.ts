/**
 * The environment that gives a service the addresses of a service it calls (ServiceDefinition's
 * `calls`): `GRPC_ADDR_<NAME>` (`host:port` of its gRPC server) and `HTTP_URL_<NAME>` (its HTTP
 * base URL), `<NAME>` being the service name upper-cased with `-` as `_` (`3p-connector` →
 * `GRPC_ADDR_3P_CONNECTOR`). The Helm chart names them the same way.
 */
export function callVariables(
  name: string,
  at: { host: string; grpcPort: number; httpPort: number },
): Record<string, string> {
  const key = name.toUpperCase().replace(/-/g, '_');
  return {
    [`GRPC_ADDR_${key}`]: `${at.host}:${at.grpcPort}`,
    [`HTTP_URL_${key}`]: `http://${at.host}:${at.httpPort}`,
  };
}

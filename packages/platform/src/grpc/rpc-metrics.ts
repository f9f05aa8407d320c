import type { Attributes, Histogram } from '@opentelemetry/api';
import { metrics } from '../metrics/registry.js';

/**
 * gRPC call durations under the OpenTelemetry RPC conventions (`rpc.server.call.duration`,
 * `rpc.client.call.duration`, in seconds), labelled with the service and method of the path and
 * the gRPC status code: `rpc_server_call_duration_seconds{rpc_service, rpc_method,
 * rpc_grpc_status_code}`.
 */
export function rpcServerDuration(): Histogram {
  return metrics.histogram('rpc_server_call_duration_seconds', {
    description: 'Duration of gRPC calls this process served',
    unit: 's',
  });
}

export function rpcClientDuration(): Histogram {
  return metrics.histogram('rpc_client_call_duration_seconds', {
    description: 'Duration of gRPC calls this process made, as its client saw them',
    unit: 's',
  });
}

/** `/marquee.cart.v1.CartService/Reserve` → service, method, and the status code. */
export function rpcAttributes(path: string, code: number): Attributes {
  const [, service = '', method = ''] = path.split('/');
  return {
    'rpc.system': 'grpc',
    'rpc.service': service,
    'rpc.method': method,
    'rpc.grpc.status_code': code,
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger/index.js';
import { prometheusExporter } from './registry.js';
import { startRuntimeMetrics } from './runtime.js';

export interface MetricsServerOptions {
  host: string;
  /** 0 asks the OS for an ephemeral port (tests). */
  port: number;
  logger?: Logger;
}

export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the process's metrics in the Prometheus text format at `GET /metrics` on a port of its
 * own (`METRICS_PORT`), never on a service's public API port: Prometheus reaches it inside the
 * cluster, clients never do. Every other path answers 404. Starts the runtime metrics (event-loop
 * delay, heap) with it.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const exporter = prometheusExporter();
  const stopRuntime = startRuntimeMetrics();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (path === '/metrics' && (request.method === 'GET' || request.method === 'HEAD')) {
      exporter.getMetricsRequestHandler(request, response);
      return;
    }
    response.statusCode = 404;
    response.end('not found\n');
  });
  // A scraper that keeps its connection must not hold a stopping process open.
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    stopRuntime();
    throw error;
  }
  server.unref();
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/metrics`;
  options.logger?.info({ url }, 'metrics listening');
  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        stopRuntime();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

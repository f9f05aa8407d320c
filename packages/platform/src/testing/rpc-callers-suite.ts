import { status } from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceDefinition } from '../service/types.js';
import { probeRpcCallers, type RpcCallersReport } from './rpc-callers.js';

/** Every Marquee service, and a client made outside any (`unnamed`). */
export const EVERY_CALLER = [
  'edge-gateway',
  'auth-gateway',
  'publisher',
  'catalog-indexer',
  'deals',
  'cart',
  'secure-entry',
  '3p-connector',
  'reconciler',
  'partner-reference',
  'unnamed',
] as const;

/**
 * The test every service with gRPC runs of its allow-lists (docs/rpc-callers.md): the service is
 * hosted and every RPC is called as every Marquee service and as an unnamed client. Each RPC must
 * be declared, refused with PERMISSION_DENIED to every identity it does not name (by the check, not
 * by its handler), and let through to the handler for every identity it names.
 */
export function describeRpcCallers<C>(
  service: ServiceDefinition<C>,
  options: {
    /** How many RPCs its .proto services have: a new RPC must be counted (and declared). */
    rpcs: number;
    /** Settings it needs to start (addresses of the services it calls). */
    env?: NodeJS.ProcessEnv;
  },
): void {
  describe(`${service.name}: who may call which RPC`, () => {
    let report: RpcCallersReport;

    beforeAll(async () => {
      report = await probeRpcCallers(service, {
        identities: EVERY_CALLER,
        ...(options.env ? { env: options.env } : {}),
      });
    });

    it('hosts every RPC of its .proto services, each with declared callers', () => {
      expect(report.rpcs).toHaveLength(options.rpcs);
      for (const rpc of report.rpcs) {
        const [, grpcService = '', name = ''] = rpc.split('/');
        expect(service.callers?.[grpcService]?.[name], rpc).toBeDefined();
      }
    });

    it('refuses every RPC to every identity it does not declare (PERMISSION_DENIED)', () => {
      const disallowed = report.probes.filter((probe) => !probe.allowed);
      for (const rpc of report.rpcs) {
        expect(disallowed.filter((probe) => probe.path === rpc).length, rpc).toBeGreaterThan(0);
      }
      expect(disallowed.every((probe) => probe.code === status.PERMISSION_DENIED)).toBe(true);
      expect(report.admitted).toEqual([]);
    });

    it('lets each declared caller through to the handler', () => {
      const allowed = report.probes.filter((probe) => probe.allowed);
      expect(allowed.length).toBeGreaterThan(0);
      expect(report.refused).toEqual([]);
    });
  });
}

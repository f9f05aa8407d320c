import { status } from '@grpc/grpc-js';
import { probeRpcCallers, type RpcCallersReport } from '@marquee/platform/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { secureEntryService } from '../src/index.js';

/** Every Marquee service, and a client made outside any (`unnamed`). */
const IDENTITIES = [
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
];

/** docs/security.md, "Who may call which RPC": the edge may call secure-entry. */
describe('secure-entry: who may call which RPC', () => {
  let report: RpcCallersReport;

  beforeAll(async () => {
    report = await probeRpcCallers(secureEntryService, {
      identities: IDENTITIES,
    });
  });

  it('hosts every RPC of its .proto services, each with declared callers', () => {
    expect(report.rpcs).toHaveLength(7);
    for (const rpc of report.rpcs) {
      const [, grpcService = '', name = ''] = rpc.split('/');
      expect(secureEntryService.callers?.[grpcService]?.[name], rpc).toBeDefined();
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

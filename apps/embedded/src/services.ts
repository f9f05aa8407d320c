import { threePConnectorService } from '@marquee/3p-connector';
import { authGatewayService } from '@marquee/auth-gateway';
import { cartService } from '@marquee/cart';
import { catalogIndexerService } from '@marquee/catalog-indexer';
import { dealsService } from '@marquee/deals';
import { edgeGatewayService } from '@marquee/edge-gateway';
import { partnerReferenceService } from '@marquee/partner-reference';
import { runAsService, type RpcCallers } from '@marquee/platform/grpc';
import type {
  DevelopmentSettings,
  ServiceDefinition,
  ServiceInfra,
  ServiceParts,
} from '@marquee/platform/service';
import { mergeV8Options, NO_V8_OPTIONS, type V8Options } from '@marquee/platform/v8';
import { publisherService } from '@marquee/publisher';
import { reconcilerService } from '@marquee/reconciler';
import { secureEntryService } from '@marquee/secure-entry';

/**
 * A service with its config type erased: what the runner needs to validate, compose and serve it,
 * and what the service says it needs (ServiceDefinition's `uses`, `calls`, `callers`, `development`,
 * `v8`).
 */
export interface Bootable {
  name: string;
  v8: V8Options;
  uses: { bus?: boolean; mongo?: boolean } | undefined;
  calls: readonly string[];
  /** ServiceDefinition's `callsLater`: given an address only when started first. */
  callsLater: readonly string[];
  /** Who may call each of its RPCs (ServiceDefinition's `callers`), for its gRPC server. */
  callers: RpcCallers;
  development: DevelopmentSettings;
  boot(
    infra: ServiceInfra,
    env: NodeJS.ProcessEnv,
  ): Promise<{ parts: ServiceParts; httpPort: number }>;
}

export const bootable = <C extends { HTTP_PORT: number }>(
  service: ServiceDefinition<C>,
): Bootable => ({
  name: service.name,
  v8: service.v8 ?? NO_V8_OPTIONS,
  uses: service.uses,
  calls: service.calls ?? [],
  callsLater: service.callsLater ?? [],
  callers: service.callers ?? {},
  development: service.development ?? {},
  async boot(infra, env) {
    const config = service.loadConfig(env);
    // Clients made while composing speak for this service (its gRPC calls carry its name).
    const parts = await runAsService(service.name, () => service.compose(infra, config));
    return { parts, httpPort: config.HTTP_PORT };
  },
});

/** Every service, in one process. Adding a service to the embedded default is adding it here. */
export const hostedServices: ReadonlyArray<Bootable> = [
  bootable(authGatewayService),
  bootable(publisherService),
  bootable(catalogIndexerService),
  bootable(dealsService),
  bootable(partnerReferenceService),
  bootable(threePConnectorService),
  bootable(cartService),
  bootable(secureEntryService),
  bootable(reconcilerService),
  bootable(edgeGatewayService),
];

/**
 * The order to start `services` in: every service after the services it calls (their addresses
 * are its configuration), otherwise as listed. A call to a service not in the list, or a cycle, is
 * an error: nothing could start it.
 */
export function startOrder(services: ReadonlyArray<Bootable>): Bootable[] {
  const byName = new Map(services.map((service) => [service.name, service]));
  const ordered: Bootable[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (service: Bootable) => {
    if (placed.has(service.name)) return;
    if (visiting.has(service.name))
      throw new Error(`embedded: ${service.name} calls a service that calls it back`);
    visiting.add(service.name);
    for (const callee of service.calls) {
      const called = byName.get(callee);
      if (!called)
        throw new Error(`embedded: ${service.name} calls ${callee}, which is not hosted`);
      place(called);
    }
    visiting.delete(service.name);
    placed.add(service.name);
    ordered.push(service);
  };
  for (const service of services) place(service);
  return ordered;
}

/**
 * The V8 options of this process: those of every service it hosts, each once (a disagreement
 * between two services is an error). The same set the launch hook reads from the package.json
 * files of this package's service dependencies.
 */
export function hostedV8Options(): V8Options {
  return mergeV8Options(hostedServices.map(({ name, v8 }) => ({ name, v8 })));
}

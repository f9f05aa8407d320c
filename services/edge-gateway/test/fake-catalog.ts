import type * as grpc from '@grpc/grpc-js';
import { createGrpcServer, startGrpcServer, stopGrpcServer } from '@marquee/platform/grpc';
import { silentLogger } from '@marquee/platform/testing';
import { CatalogServiceService, type WatchChangesResponse } from '@marquee/proto/catalog/v1';

export const logger = silentLogger('edge-test');

/** The fake catalog admits the edge's clients as this test makes them: outside any service. */
const callers = {
  'marquee.catalog.v1.CatalogService': Object.fromEntries(
    Object.values(CatalogServiceService).map((method) => [method.path.split('/')[2]!, ['unnamed']]),
  ),
};

/** A fake CatalogService on 127.0.0.1 (`port`, default a free one) with these handlers. */
export async function fakeCatalogServer(
  implementation: grpc.UntypedServiceImplementation,
  port = 0,
) {
  const server = createGrpcServer({
    logger,
    callers,
    services: [{ definition: CatalogServiceService, implementation }],
  });
  const bound = await startGrpcServer(server, { host: '127.0.0.1', port });
  return { server, port: bound, stop: () => stopGrpcServer(server, 1_000) };
}

/**
 * A CatalogService whose WatchChanges streams `{instance, sequence}` with a sequence the test
 * moves (`change`), beside the `other` handlers given.
 */
export async function watchedCatalog(
  instance: string,
  other: grpc.UntypedServiceImplementation = {},
  port = 0,
) {
  const streams = new Set<grpc.ServerWritableStream<unknown, WatchChangesResponse>>();
  const state = { sequence: 1 };
  const { port: bound, stop } = await fakeCatalogServer(
    {
      watchChanges(call: grpc.ServerWritableStream<unknown, WatchChangesResponse>) {
        streams.add(call);
        call.on('cancelled', () => streams.delete(call));
        call.write({ instance, sequence: state.sequence });
      },
      ...other,
    },
    port,
  );
  return {
    port: bound,
    address: `127.0.0.1:${bound}`,
    change() {
      state.sequence += 1;
      for (const call of streams) call.write({ instance, sequence: state.sequence });
    },
    async stop() {
      for (const call of streams) call.end();
      await stop();
    },
  };
}

/** Waits until `check` holds, polling every 20 ms; throws after `timeoutMs`. */
export const until = async (check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

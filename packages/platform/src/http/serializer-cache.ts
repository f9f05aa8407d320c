import {
  SerializerSelector,
  type SerializerCompiler,
  type SerializerFactory,
} from '@fastify/fast-json-stringify-compiler';

/**
 * fastify's own serializer builder (fast-json-stringify), compiling each response schema once per
 * process instead of once per route and server.
 *
 * fastify compiles a serializer for every response schema of every route, and again in every
 * server it builds: one error schema shared by a hundred routes is compiled a hundred times, and
 * the unit tiers build a whole server for each test (about 150 ms an edge, most of it here). A
 * compiled serializer is a pure function of its schema, the shared schemas it may reference
 * (`addSchema`) and the compiler's options, so servers and routes with the same three share it.
 * Keys are the JSON of those values; a schema written in another key order only misses the cache.
 */
let selector: SerializerFactory | undefined;

/** Compiled serializers by the JSON of (shared schemas, options), then of the route's schema. */
const compiled = new Map<string, Map<string, ReturnType<SerializerCompiler>>>();

export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  selector ??= SerializerSelector();
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let byschema = compiled.get(context);
  if (byschema === undefined) {
    byschema = new Map();
    compiled.set(context, byschema);
  }
  const known = byschema;
  const compile = selector(externalSchemas, options);
  return (route) => {
    const key = JSON.stringify(route.schema ?? null);
    let serializer = known.get(key);
    if (serializer === undefined) {
      serializer = compile(route);
      known.set(key, serializer);
    }
    return serializer;
  };
};

/** How many distinct serializers have been compiled in this process (for tests). */
export function compiledSerializerCount(): number {
  let count = 0;
  for (const byschema of compiled.values()) count += byschema.size;
  return count;
}

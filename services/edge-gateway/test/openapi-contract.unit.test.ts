// The form of the OpenAPI document a client generator reads: operation ids, shared schemas and
// headers under components, servers, and the Discovery error page its error bodies link to
// (ports/http/openapi-contract.ts, openapi-components.ts, openapi-operation-ids.ts).
import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_ERROR_CODES } from '../src/ports/http/discovery/error-codes-page.js';
import { discovery, partnerCart, deals } from '../src/ports/http/families/catalog.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { hoistNamedSchemas } from '../src/ports/http/openapi-components.js';
import { buildOpenApiDocument } from '../src/ports/http/openapi-document.js';
import {
  assertUniqueOperationIds,
  operationIdOf,
} from '../src/ports/http/openapi-operation-ids.js';
import { fakeBackends } from './fakes.js';

type Json = Record<string, unknown>;
type Operation = {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { headers?: Record<string, { $ref?: string }> }>;
};
type Document = {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Json>>;
};

let document: Document;
beforeAll(async () => {
  document = (await buildOpenApiDocument()) as unknown as Document;
});

/** An operation's responses, each shared one (`components/responses`) resolved. */
const responsesOf = (path: string, method: string) =>
  Object.fromEntries(
    Object.entries(document.paths[path]![method]!.responses).map(([status, response]) => {
      const ref = (response as { $ref?: string }).$ref;
      return [
        status,
        (ref ? document.components.responses![ref.split('/').pop()!] : response) as {
          headers?: Record<string, { $ref?: string }>;
        },
      ];
    }),
  );

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

/** Every `$ref` anywhere in a value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

describe('operation ids', () => {
  it('gives every operation a unique one', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives them from the family, the twin prefix and the route', () => {
    expect(document.paths['/discovery/v2/events/{id}']!.get!.operationId).toBe(
      'getDiscoveryEventsById',
    );
    expect(operationIdOf(discovery, 'get', '/discovery/v2/events')).toBe('getDiscoveryEvents');
    expect(operationIdOf(partnerCart, 'post', '/partners-preprod/v1/events/{event_id}/cart')).toBe(
      'postPartnerCartPreprodEventsByEventIdCart',
    );
    expect(operationIdOf(deals, 'get', '/dc/content-qa/v1/deals/events')).toBe(
      'getDealsQaDealsEvents',
    );
    expect(operationIdOf(undefined, 'post', '/webhooks/stripe')).toBe('postWebhooksStripe');
  });

  it('refuses a document where two operations share one', () => {
    expect(() =>
      assertUniqueOperationIds([
        ['getThing', 'GET /a'],
        ['getThing', 'GET /b'],
      ]),
    ).toThrow('operationId getThing is used twice: by GET /a and by GET /b');
  });
});

describe('shared schemas', () => {
  it("names each family's error body once and refers to it", () => {
    const names = Object.keys(document.components.schemas!);
    expect(names).toEqual(
      expect.arrayContaining(['DiscoveryErrors', 'DiscoveryFault', 'PartnerError', 'PartnerCart']),
    );
    const schema = (path: string, method: string, status: string) =>
      (responsesOf(path, method)[status] as unknown as { content: Json }).content[
        'application/json'
      ];
    expect(schema('/discovery/v2/events', 'get', '503')).toEqual({
      schema: { $ref: '#/components/schemas/DiscoveryErrors' },
    });
    // The framework's answers are said once per family, as shared responses.
    expect(document.paths['/discovery/v2/events']!.get!.responses['503']).toEqual({
      $ref: '#/components/responses/DiscoveryKeyedError503',
    });
  });

  it('leaves no reference dangling', () => {
    for (const ref of refsIn(document)) {
      const [hash, components, kind, name] = ref.split('/');
      expect([hash, components], ref).toEqual(['#', 'components']);
      expect(document.components[kind!]?.[name!], ref).toBeDefined();
    }
  });

  it('keeps a use-site description beside the reference, and refuses two shapes of one name', () => {
    const shape = { title: 'Thing', type: 'object', properties: { a: { type: 'string' } } };
    const doc = {
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                content: { 'application/json': { schema: { ...shape, description: 'A' } } },
              },
              '404': { content: { 'application/json': { schema: { ...shape } } } },
            },
          },
        },
      },
    };
    const hoisted = hoistNamedSchemas(structuredClone(doc)) as unknown as Document & Json;
    expect(hoisted.components.schemas).toEqual({ Thing: shape });
    expect(refsIn(hoisted.paths)).toEqual([
      '#/components/schemas/Thing',
      '#/components/schemas/Thing',
    ]);
    const clash = structuredClone(doc);
    clash.paths['/a'].get.responses['404'].content['application/json'].schema.properties = {
      a: { type: 'integer' },
    };
    expect(() => hoistNamedSchemas(clash)).toThrow('Two different schemas are titled "Thing"');
  });
});

describe('servers and headers', () => {
  it('names the origin and a host of choice', () => {
    expect(document.servers.map((server) => server.url)).toEqual(['/', 'https://{host}']);
  });

  it('declares the quota headers on keyed operations and the correlation id everywhere', () => {
    const events = responsesOf('/discovery/v2/events', 'get');
    expect(Object.keys(events['200']!.headers!).sort()).toEqual([
      'Rate-Limit',
      'Rate-Limit-Available',
      'Rate-Limit-Over',
      'Rate-Limit-Reset',
      'X-Correlation-Id',
    ]);
    expect(Object.keys(events['401']!.headers!)).toEqual(['X-Correlation-Id']);
    expect(Object.keys(events['429']!.headers!)).toContain('Retry-After');
    // The admin API counts no quota.
    const apps = responsesOf('/admin/v1/apps', 'post');
    expect(Object.keys(apps['201']!.headers!)).toEqual(['X-Correlation-Id']);
    expect(document.components.headers!['Rate-Limit-Over']).toMatchObject({
      schema: { type: 'integer', enum: [0, 1] },
    });
  });

  it('declares Location where a cart is created', () => {
    const created = document.paths['/commerce/v2/shopping/carts']!.post!.responses;
    expect(Object.keys(created['201']!.headers!)).toContain('location');
  });

  it('documents the reuse of an Idempotency-Key on every operation that takes one', () => {
    for (const { path, method, operation } of operations()) {
      const takesKey = (operation.parameters ?? []).some(
        (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      );
      if (!takesKey) continue;
      // Commerce answers a reused key as its other cart conflicts, 409; the others 422.
      const status = path.startsWith('/commerce/') ? '409' : '422';
      expect(operation.responses[status], `${method} ${path}`).toBeDefined();
    }
  });
});

describe('rules between query parameters (x-dependencies)', () => {
  type Parameter = {
    in: string;
    name: string;
    description?: string;
    schema?: Json;
    'x-dependencies'?: Array<Record<string, unknown>>;
  };
  const parametersOf = (path: string, method = 'get') =>
    (document.paths[path]![method]!.parameters ?? []) as Parameter[];
  const rulesOf = (path: string, name: string) =>
    parametersOf(path).find((p) => p.name === name)?.['x-dependencies'];

  it('sit on the query parameter, name parameters of the operation, and are said in words', () => {
    let rules = 0;
    for (const { path, method, operation } of operations()) {
      const parameters = (operation.parameters ?? []) as Parameter[];
      const names = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
      for (const parameter of parameters) {
        expect(parameter.schema ?? {}, `${method} ${path} ${parameter.name}`).not.toHaveProperty(
          'x-dependencies',
        );
        for (const rule of parameter['x-dependencies'] ?? []) {
          rules++;
          expect(parameter.in).toBe('query');
          const others = [
            ...((rule.requires as string[] | undefined) ?? []),
            ...[rule.notBefore, rule.notAbove, rule.productWith].filter(
              (o): o is string => typeof o === 'string',
            ),
          ];
          expect(others.length, `${method} ${path} ${parameter.name}`).toBeGreaterThan(0);
          for (const other of others) {
            expect(names, `${method} ${path} ${parameter.name} -> ${other}`).toContain(other);
            expect(parameter.description, `${method} ${path} ${parameter.name}`).toContain(
              `\`${other}\``,
            );
          }
          expect([400, 406]).toContain(rule.status);
        }
      }
    }
    expect(rules).toBeGreaterThan(0);
  });

  it('state what the handlers refuse, family by family', () => {
    expect(rulesOf('/discovery/v2/events', 'radius')).toEqual([
      { requires: ['latlong'], status: 400 },
    ]);
    expect(rulesOf('/discovery/v2/events', 'unit')).toEqual([
      { requires: ['latlong'], status: 400 },
    ]);
    expect(rulesOf('/discovery/v2/events', 'endDateTime')).toEqual([
      { notBefore: 'startDateTime', status: 400 },
    ]);
    for (const search of ['events', 'venues', 'attractions', 'classifications'])
      expect(rulesOf(`/discovery/v2/${search}`, 'page')).toEqual([
        { productWith: 'size', lessThan: 1000, defaults: { size: 20 }, status: 400 },
      ]);
    // Venue search ignores radius and unit without latlong (nothing to measure from).
    expect(rulesOf('/discovery/v2/venues', 'radius')).toBeUndefined();
    for (const search of ['events', 'venues']) {
      expect(rulesOf(`/mfxapi/v2/${search}`, 'lat')).toEqual([{ requires: ['long'], status: 400 }]);
      expect(rulesOf(`/mfxapi/v2/${search}`, 'long')).toEqual([{ requires: ['lat'], status: 400 }]);
      expect(rulesOf(`/mfxapi/v2/${search}`, 'radius')).toEqual([
        { requires: ['lat', 'long'], status: 400 },
      ]);
    }
    expect(rulesOf('/mfxapi/v2/events', 'sort_by')).toEqual([
      { requires: ['lat', 'long'], value: 'proximity', status: 400 },
    ]);
    expect(rulesOf('/mfxapi/v2/events', 'min_price')).toEqual([
      { notAbove: 'max_price', status: 400 },
    ]);
    expect(rulesOf('/dc/content/v1/deals/events', 'latitude')).toEqual([
      { requires: ['longitude'], status: 406 },
    ]);
    expect(rulesOf('/dc/content/v1/deals/events', 'timeRangeEnd')).toEqual([
      { notBefore: 'timeRangeStart', status: 406 },
    ]);
  });
});

describe('the Discovery error page', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('is served without a key, with an anchor for each code the bodies link to', async () => {
    app = createHttpServer({ logger: createLogger({ service: 'edge-test', level: 'silent' }) });
    await registerEdgeRoutes(app, {
      adminToken: 'an admin token',
      version: 'test',
      backends: fakeBackends({}),
    });
    const page = await app.inject({ url: '/discovery/v2/errors.html' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const { code } of DISCOVERY_ERROR_CODES) expect(page.body).toContain(`id="${code}"`);
    // A refused call's body links into that page.
    const refused = await app.inject({ url: '/discovery/v2/nowhere' });
    const href = refused.json().errors[0]._links.about.href as string;
    expect(href).toBe('/discovery/v2/errors.html#DIS1004');
    expect(page.body).toContain(`id="${href.split('#')[1]}"`);
  });
});

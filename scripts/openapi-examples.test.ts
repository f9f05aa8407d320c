// The examples of docs/api/openapi.json against their schemas: every `example` and `examples` of a
// request body or a response, validated with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect)
// with the document's components, and unknown properties refused (an example shows what the API
// sends, so a property its schema does not name is a stale example). Run by `pnpm test` with
// generate-openapi.test.ts; alone: `pnpm exec vitest run scripts/openapi-examples.test.ts`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

const documentPath = fileURLToPath(new URL('../docs/api/openapi.json', import.meta.url));
const document = JSON.parse(readFileSync(documentPath, 'utf8')) as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `schema` with `additionalProperties: false` on every object schema that names its properties
 * and says nothing of others (Redocly's `allowAdditionalProperties: false` reading, the lint of
 * `pnpm lint`), data keywords left alone.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!isObject(schema)) return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (['example', 'examples', 'default', 'const', 'enum'].includes(key)) copy[key] = value;
    else if (key === 'properties' && isObject(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closed(v)]));
    else copy[key] = closed(value);
  }
  if (isObject(copy.properties) && !('additionalProperties' in copy)) {
    copy.additionalProperties = false;
  }
  return copy;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ components: { schemas: closed(document.components.schemas) } }, 'openapi');

/** Every example of the document: where it is, the schema it illustrates, the value. */
function examples(): Array<{ where: string; schema: Json; value: unknown }> {
  const found: Array<{ where: string; schema: Json; value: unknown }> = [];
  const collect = (where: string, content: unknown) => {
    if (!isObject(content)) return;
    for (const [type, media] of Object.entries(content as Record<string, Media>)) {
      if (!media.schema) continue;
      if (media.example !== undefined)
        found.push({ where: `${where} ${type}`, schema: media.schema, value: media.example });
      for (const [name, example] of Object.entries(media.examples ?? {}))
        found.push({
          where: `${where} ${type} ${name}`,
          schema: media.schema,
          value: example.value,
        });
    }
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      collect(`${where} request`, (operation.requestBody as Json | undefined)?.content);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>))
        collect(`${where} ${status}`, response.content);
    }
  }
  return found;
}

/** `$ref`s to the document's components resolve in ajv's copy of them. */
const withRefs = (schema: Json) =>
  JSON.parse(
    JSON.stringify(closed(schema)).replaceAll('"#/components/', '"openapi#/components/'),
  ) as Json;

describe('the examples of docs/api/openapi.json', () => {
  const all = examples();

  it.each(all.map((e) => [e.where, e]))('%s matches its schema', (_where, example) => {
    const validate = ajv.compile(withRefs(example.schema));
    const valid = validate(example.value);
    expect(valid ? [] : validate.errors).toEqual([]);
  });

  it("shows an answer of each family's main operations", () => {
    const answered = new Set(all.map((e) => e.where.split(' ').slice(0, 3).join(' ')));
    for (const operation of [
      'GET /discovery/v2/events 200',
      'GET /discovery/v2/events/{id} 200',
      'GET /mfxapi/v2/events 200',
      'GET /mfxapi/v2/events/{id} 200',
      'POST /partners/v1/events/{event_id}/cart 200',
      'GET /partners/v1/events/{event_id}/cart 200',
      'PUT /partners/v1/events/{event_id}/cart/payment 200',
      'PUT /partners/v1/events/{event_id}/cart 200',
      'GET /commerce/v2/events/{id}/offers 200',
      'POST /commerce/v2/shopping/carts 201',
      'GET /top-picks/v1/events/id/{event_id} 200',
      'GET /admin/v1/orders/{orderId} 200',
    ])
      expect(answered, operation).toContain(operation);
  });
});

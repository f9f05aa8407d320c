// The AsyncAPI contract of the Kafka topics (scripts/generate-asyncapi.ts). Run by `pnpm test`
// (scripts/test.mjs) after the `--check` step; alone: `pnpm exec vitest run scripts/generate-asyncapi.test.ts`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from '@asyncapi/parser';
import {
  type DescField,
  type DescMessage,
  type JsonValue,
  ScalarType,
  create,
  toJson,
} from '@bufbuild/protobuf';
import { Ajv } from 'ajv';
import { readdirSync } from 'node:fs';
import { loadRegistry } from './proto-json-schema.ts';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Catalog,
  PROTOBUF_SCHEMA_FORMAT,
  buildAsyncApi,
  loadCatalog,
  outputPath,
  renderAsyncApi,
  validateAsyncApi,
} from './generate-asyncapi.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const script = join(root, 'scripts/generate-asyncapi.ts');

// The document as plain data, to walk and to corrupt.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const documentOf = (c: Catalog): any => structuredClone(buildAsyncApi(c));

let catalog: Catalog;
let text: string;

beforeAll(async () => {
  catalog = await loadCatalog();
  text = await renderAsyncApi(buildAsyncApi(catalog));
}, 60_000);

// Parsing and the child processes (bundling the catalog, prettier) take seconds on a busy machine.
const slow = { timeout: 120_000 };

describe('AsyncAPI document of the topic catalog', slow, () => {
  it('reads every topic of the catalog, with its doc comment', () => {
    const names = catalog.topics.map((t) => t.name);
    expect(names).toContain('event-changed');
    expect(new Set(names).size).toBe(names.length);
    for (const topic of catalog.topics) {
      expect(topic.summary, topic.name).toMatch(/\w/);
      expect(topic.summary, topic.name).not.toMatch(/import |export |\*\//);
    }
  });

  it('is valid AsyncAPI 3 for @asyncapi/parser, with one channel per topic', async () => {
    expect(await validateAsyncApi(text)).toEqual([]);
    const { document } = await new Parser().parse(text);
    expect(document).toBeDefined();
    expect(document!.version()).toBe('3.0.0');
    expect(
      document!
        .channels()
        .all()
        .map((c) => c.address())
        .sort(),
    ).toEqual(catalog.topics.map((t) => t.name).sort());
    // The payloads are AsyncAPI schemas (the default format) that the parser resolved.
    for (const message of document!.messages().all()) {
      expect(message.json().payload.schemaFormat, message.id()).toBeUndefined();
      expect(message.payload()!.type(), message.id()).toBe('object');
      expect(message.payload()!.title(), message.id()).toBe(message.json()['x-protobuf-message']);
    }
  });

  it('describes each topic as the catalog says: key, policy, retention, producers, headers', () => {
    const doc = documentOf(catalog);
    for (const topic of catalog.topics) {
      const channel = doc.channels[topic.name];
      expect(channel.address).toBe(topic.name);
      expect(channel.bindings.kafka.topicConfiguration).toEqual({
        'cleanup.policy': [topic.compacted ? 'compact' : 'delete'],
        'retention.ms': topic.retentionMs,
      });
      expect(channel['x-marquee-producers']).toEqual(topic.producers);
      expect(channel['x-marquee-consumers']).toEqual(topic.consumers);
      expect(doc.operations[`${topic.name}.send`].action).toBe('send');
      expect(Boolean(doc.operations[`${topic.name}.receive`])).toBe(topic.consumers.length > 0);

      const message = doc.components.messages[topic.type];
      expect(message.bindings.kafka.key.description).toBe(topic.keyDescription);
      expect(message.headers.properties.ce_type.const).toBe(topic.type);
      expect(message.headers.properties.ce_source.examples).toEqual(
        topic.producers.map((p) => `marquee/${p}`),
      );
      expect(message.headers.required).toEqual([
        'ce_specversion',
        'ce_id',
        'ce_source',
        'ce_type',
        'ce_time',
      ]);
      expect(message.contentType).toBe('application/protobuf');
      expect(message.description).toContain(PROTOBUF_SCHEMA_FORMAT);
      expect(message.description).toContain(`proto/${topic.protoFile}`);
      expect(message.payload).toEqual({ $ref: `#/components/schemas/${topic.type}` });
    }
  });

  it('points every message at a .proto file that declares it', () => {
    for (const topic of catalog.topics) {
      const file = join(root, 'proto', topic.protoFile);
      expect(existsSync(file), file).toBe(true);
      const proto = readFileSync(file, 'utf8');
      const dot = topic.type.lastIndexOf('.');
      expect(proto, topic.type).toContain(`package ${topic.type.slice(0, dot)};`);
      expect(proto, topic.type).toMatch(
        new RegExp(`^message ${topic.type.slice(dot + 1)} \\{`, 'm'),
      );
    }
  });

  it('rejects a document the AsyncAPI 3 schema does not allow', async () => {
    const doc = documentOf(catalog);
    doc.operations['event-changed.send'].action = 'publish'; // AsyncAPI 2 wording
    delete doc.channels['deal-changed'];
    const problems = await validateAsyncApi(JSON.stringify(doc));
    expect(problems.some((p) => p.includes('"send", "receive"'))).toBe(true);
    expect(problems.some((p) => p.includes('deal-changed'))).toBe(true);
  });
});

// A value for every field of a message (one member per oneof), none at its default, so that its
// JSON mapping (@bufbuild/protobuf's toJson) shows every field. Nested messages to a depth of 4.
function sampleScalar(type: ScalarType): unknown {
  switch (type) {
    case ScalarType.STRING:
      return 'text';
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return new Uint8Array([1, 2, 3]);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 1.5;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return -9007199254740993n; // beyond a JSON number's precision
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return 9007199254740993n;
    default:
      return 7;
  }
}

function sampleInit(desc: DescMessage, depth = 0): Record<string, unknown> {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return { seconds: 1764000000n, nanos: 5_000_000 };
    case 'google.protobuf.Struct':
      return { fields: { a: { kind: { case: 'stringValue', value: 'x' } } } };
    case 'google.protobuf.Value':
      return { kind: { case: 'numberValue', value: 1 } };
  }
  const init: Record<string, unknown> = {};
  if (depth > 4) return init;
  const element = (field: DescField, kind: string | undefined): unknown =>
    kind === 'scalar'
      ? sampleScalar(field.scalar!)
      : kind === 'enum'
        ? field.enum!.values.at(-1)!.number
        : create(field.message!, sampleInit(field.message!, depth + 1) as never);
  for (const field of desc.fields) {
    let value: unknown;
    if (field.fieldKind === 'list') value = [element(field, field.listKind)];
    else if (field.fieldKind === 'map') value = { '1': element(field, field.mapKind) };
    else value = element(field, field.fieldKind);
    if (field.oneof) {
      init[field.oneof.localName] ??= { case: field.localName, value };
    } else init[field.localName] = value;
  }
  return init;
}

describe('payload schemas from the .proto messages', slow, () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  beforeAll(() => {
    doc = documentOf(catalog);
  });
  const schemaOf = (typeName: string) => doc.components.schemas[typeName];
  /** The named schema a property refers to, directly, through `allOf` or as its items. */
  const referred = (property: {
    $ref?: string;
    allOf?: { $ref: string }[];
    items?: { $ref?: string };
    additionalProperties?: { $ref?: string };
  }): string | undefined =>
    (
      property.$ref ??
      property.allOf?.[0]?.$ref ??
      property.items?.$ref ??
      property.additionalProperties?.$ref
    )
      ?.split('/')
      .at(-1);

  it("gives every topic's payload all its message's fields, nested messages included", () => {
    const checked = new Set<string>();
    const check = (desc: DescMessage) => {
      if (checked.has(desc.typeName) || desc.file.name.startsWith('google/')) return;
      checked.add(desc.typeName);
      const schema = schemaOf(desc.typeName);
      expect(schema, desc.typeName).toBeDefined();
      expect(Object.keys(schema.properties), desc.typeName).toEqual(
        desc.fields.map((f) => f.jsonName),
      );
      for (const field of desc.fields) {
        const property = schema.properties[field.jsonName];
        expect(property['x-protobuf-field']).toBe(field.name);
        expect(Boolean(property.deprecated), `${desc.typeName}.${field.name}`).toBe(
          field.deprecated,
        );
        const nested = field.message;
        if (nested && !nested.file.name.startsWith('google/')) {
          expect(referred(property), `${desc.typeName}.${field.name}`).toBe(nested.typeName);
          check(nested);
        }
        if (field.enum) {
          expect(referred(property)).toBe(field.enum.typeName);
          expect(schemaOf(field.enum.typeName).enum).toEqual(field.enum.values.map((v) => v.name));
        }
      }
    };
    for (const topic of catalog.topics) {
      expect(doc.components.messages[topic.type].payload.$ref).toBe(
        `#/components/schemas/${topic.type}`,
      );
      check(catalog.registry.getMessage(topic.type)!);
    }
    expect(checked.size).toBeGreaterThan(catalog.topics.length);
    // Field names are lowerCamelCase: the proto name `order_token_sha256` is `orderTokenSha256`.
    expect(schemaOf('marquee.cart.v1.OrderConfirmed').properties.orderTokenSha256).toBeDefined();
  });

  it("accepts each topic's message in the protobuf JSON mapping, and refuses a wrong type", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('uint32', true).addFormat('uint64', true);
    ajv.addSchema({ components: { schemas: doc.components.schemas } }, 'asyncapi');
    for (const topic of catalog.topics) {
      const desc = catalog.registry.getMessage(topic.type)!;
      const json = toJson(desc, create(desc, sampleInit(desc) as never), {
        registry: catalog.registry,
      }) as Record<string, JsonValue>;
      // Every field of the message is in the JSON, so every property schema is exercised.
      expect(Object.keys(json).length, topic.name).toBe(
        desc.fields.length - desc.oneofs.reduce((n, oneof) => n + oneof.fields.length - 1, 0),
      );
      const validate = ajv.getSchema(`asyncapi#/components/schemas/${topic.type}`)!;
      expect(validate(json) ? [] : validate.errors, topic.name).toEqual([]);
    }
    // The control: an int64 as a JSON number, an enum by number, a date that is no RFC 3339 date.
    const validate = ajv.getSchema('asyncapi#/components/schemas/marquee.catalog.v1.EventChanged')!;
    expect(validate({ event: { version: 3 } })).toBe(false);
    expect(validate({ event: { status: 1 } })).toBe(false);
    expect(validate({ changedAt: 'yesterday' })).toBe(false);
    expect(validate({ event: { version: '3', status: 'EVENT_STATUS_UNSPECIFIED' } })).toBe(true);
  });

  it('marks the fields the catalog lists as personal data, and no others', () => {
    const marked: string[] = [];
    for (const [name, schema] of Object.entries<{ properties?: Record<string, never> }>(
      doc.components.schemas,
    )) {
      for (const [property, field] of Object.entries(schema.properties ?? {})) {
        if (field['x-personal-data']) marked.push(`${name}.${property}`);
      }
    }
    const listed = catalog.topics.flatMap((t) =>
      (t.personalData ?? []).map((p) => {
        const desc = catalog.registry.getMessage(t.type)!;
        return `${t.type}.${desc.fields.find((f) => f.name === p.field)!.jsonName}`;
      }),
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(marked.sort()).toEqual([...new Set(listed)].sort());
    const sealed = schemaOf('marquee.cart.v1.OrderConfirmed').properties.sealedContact;
    expect(sealed).toMatchObject({
      'x-personal-data': true,
      'x-personal-data-kind': 'contact',
      'x-personal-data-form': 'sealed',
      contentEncoding: 'base64',
    });
  });
});

describe('schema image for analytics (pnpm schema:image)', slow, () => {
  it('writes a versioned FileDescriptorSet that holds every topic message and its comments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schema-image-'));
    try {
      const r = spawnSync(
        process.execPath,
        [join(root, 'scripts/build-schema-image.ts'), '--out', dir],
        { cwd: root, encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^marquee-proto-\d+\.\d+\.\d+-[0-9a-f]{12}(-dirty)?\.binpb$/);
      expect(files[0]).toContain(`-${catalog.version}-`);
      const registry = loadRegistry(new Uint8Array(readFileSync(join(dir, files[0]!))));
      for (const topic of catalog.topics) {
        expect(registry.getMessage(topic.type), topic.type).toBeDefined();
      }
      // Well-known types are in the set, and source info (the comments) is kept.
      expect(registry.getFile('google/protobuf/timestamp.proto')).toBeDefined();
      expect(
        registry.getFile('marquee/catalog/v1/event.proto')!.proto.sourceCodeInfo,
      ).toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('generate-asyncapi --check', slow, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'asyncapi-check-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });

  it('passes on the committed file', () => {
    const r = run('--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(outputPath, 'utf8')).toBe(text);
  });

  it('fails on a stale or missing file and names the command that fixes it', () => {
    const stale = join(dir, 'asyncapi.yaml');
    const edited = text.replace(/retention\.ms: \d+/, 'retention.ms: 1');
    expect(edited).not.toBe(text);
    writeFileSync(stale, edited);
    const r = run('--check', '--file', stale);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not what the topic catalog generates');
    expect(r.stderr).toContain('node scripts/generate-asyncapi.ts');

    expect(run('--check', '--file', join(dir, 'missing.yaml')).status).toBe(1);
  });

  it('writes what --check then accepts', () => {
    const fresh = join(dir, 'fresh.yaml');
    expect(run('--file', fresh).status).toBe(0);
    expect(readFileSync(fresh, 'utf8')).toBe(text);
    expect(run('--check', '--file', fresh).status).toBe(0);
  });
});

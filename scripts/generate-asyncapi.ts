#!/usr/bin/env node
/**
 * Writes docs/api/asyncapi.yaml, the AsyncAPI 3 contract of Marquee's Kafka topics, from the topic
 * catalog (packages/proto/src/topics.ts): one channel per topic with its key, producers, consumers,
 * retention and cleanup policy, one message per protobuf type with its CloudEvents headers and its
 * payload schema. The payload schemas come from the .proto files (compiled by `buf build`, see
 * scripts/proto-json-schema.ts): the message in the protobuf JSON mapping, nested messages and enums
 * under `components/schemas`, the fields the catalog lists as personal data marked
 * `x-personal-data: true`.
 *
 *   node scripts/generate-asyncapi.ts           regenerate the file
 *   node scripts/generate-asyncapi.ts --check   exit 1 when the committed file is not what the
 *                                               catalog generates (run by `pnpm test`)
 *
 * Both modes validate the document with @asyncapi/parser (the AsyncAPI initiative's own parser:
 * JSON schema of the specification plus its Spectral rules) and refuse an invalid one. The output is
 * formatted with the repository's prettier settings so that `pnpm lint` accepts it as written.
 *
 * The catalog is TypeScript that imports ts-proto output through `.js` specifiers, which Node's
 * type stripping cannot follow; esbuild (already a root dependency) bundles it in memory instead, so
 * this works in a fresh clone without a build.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// Self-contained modules, run by Node's type stripping as they are.
import { analyticsReadable, kafkaAcls, topicAcls } from '../packages/proto/src/kafka-acls.ts';
import { isSignedTopic } from '../packages/platform/src/bus/signed-topics.ts';
import {
  type FieldMarks,
  type JsonSchema,
  SchemaSet,
  loadRegistry,
  resolveFieldPath,
} from './proto-json-schema.ts';
import type { FileRegistry } from '@bufbuild/protobuf';

const root = fileURLToPath(new URL('..', import.meta.url));
export const catalogPath = join(root, 'packages/proto/src/topics.ts');
export const outputPath = join(root, 'docs/api/asyncapi.yaml');

/** The record value's own format (the payload schema describes its JSON mapping). */
export const PROTOBUF_SCHEMA_FORMAT = 'application/vnd.google.protobuf;version=3';
const KAFKA_BINDING_VERSION = '0.5.0';

/** The fields of a catalog entry the document is made from (a `TopicDef` of topics.ts fits). */
export interface CatalogTopic {
  readonly name: string;
  readonly type: string;
  readonly keyDescription: string;
  readonly compacted: boolean;
  readonly retentionMs: number;
  readonly producers: readonly string[];
  readonly consumers: readonly string[];
  readonly protoFile: string;
  /** Whether the analytics principal may read the topic; absent = readable. */
  readonly analyticsReadable?: boolean;
  /** Fields of the message that hold personal data (topics.ts `PersonalField`). */
  readonly personalData?: readonly {
    readonly field: string;
    readonly kind: string;
    readonly form: string;
    readonly holds: string;
  }[];
  /** The doc comment of the topic in topics.ts, when it has one. */
  readonly summary?: string;
}

export interface Catalog {
  /** Version of @marquee/proto: the contract's version. */
  readonly version: string;
  readonly topics: readonly CatalogTopic[];
  /** The messages of proto/ (`buf build`), for the payload schemas. */
  readonly registry: FileRegistry;
}

/** Loads the catalog as it is in the working tree. */
export async function loadCatalog(): Promise<Catalog> {
  const { build } = await import('esbuild');
  const bundled = await build({
    entryPoints: [catalogPath],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    conditions: ['@marquee/source'],
    logLevel: 'error',
  });
  // Imported from a file of its own (a data: URL is not something every loader, vitest's included,
  // accepts).
  const dir = mkdtempSync(join(tmpdir(), 'marquee-asyncapi-'));
  let mod: Record<string, unknown> & { allTopics: readonly CatalogTopic[] };
  try {
    const file = join(dir, 'topics.mjs');
    writeFileSync(file, bundled.outputFiles[0]!.text);
    mod = await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The doc comment written above each `export const <name>Topic` is the topic's summary.
  const source = readFileSync(catalogPath, 'utf8');
  const comments = new Map<string, string>();
  for (const m of source.matchAll(/\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*export const (\w+)\s*:/g)) {
    const text = m[1]!
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ');
    comments.set(m[2]!, text);
  }
  const summaries = new Map<unknown, string>();
  for (const [exportName, value] of Object.entries(mod)) {
    const comment = comments.get(exportName);
    if (comment) summaries.set(value, comment);
  }

  const pkg = JSON.parse(readFileSync(join(root, 'packages/proto/package.json'), 'utf8')) as {
    version: string;
  };
  return {
    version: pkg.version,
    registry: loadRegistry(),
    topics: mod.allTopics.map((t) => ({
      name: t.name,
      type: t.type,
      keyDescription: t.keyDescription,
      compacted: t.compacted,
      retentionMs: t.retentionMs,
      producers: [...t.producers],
      consumers: [...t.consumers],
      protoFile: t.protoFile,
      analyticsReadable: t.analyticsReadable ?? true,
      personalData: (t.personalData ?? []).map((f) => ({ ...f })),
      summary: summaries.get(t),
    })),
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const DAY_MS = 24 * 60 * 60 * 1000;

function describeRetention(ms: number): string {
  if (ms < 0) return 'kept forever';
  if (ms % DAY_MS === 0) return `${ms / DAY_MS} day${ms === DAY_MS ? '' : 's'}`;
  return `${ms} ms`;
}

/** `marquee.catalog.v1.EventChanged` → `EventChanged`. */
const shortName = (type: string): string => type.slice(type.lastIndexOf('.') + 1);

const list = (names: readonly string[]): string =>
  names.length === 0 ? 'none inside the platform' : names.join(', ');

/** The CloudEvents binary-mode headers every record carries (the bus sets them; see @marquee/platform/bus). */
function headersSchema(topic: CatalogTopic): Json {
  return {
    type: 'object',
    description:
      'CloudEvents 1.0 attributes in the Kafka protocol binding, binary content mode: `ce_`-prefixed ' +
      'headers, the record value is the bare protobuf message. Header values are UTF-8 strings.',
    required: ['ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'ce_time'],
    properties: {
      ce_specversion: { type: 'string', const: '1.0', description: 'CloudEvents version.' },
      ce_id: {
        type: 'string',
        description:
          'Event id, unique per source. It stays the same when a producer retries (outbox relays ' +
          'resend with the stored id): deduplicate on `ce_source` + `ce_id`.',
      },
      ce_source: {
        type: 'string',
        description:
          'URI-reference of the producing service, `marquee/<service>` as the services set it. ' +
          'Identifies the producer together with `ce_id`; do not parse it.',
        examples: topic.producers.map((p) => `marquee/${p}`),
      },
      ce_type: {
        type: 'string',
        const: topic.type,
        description: 'Fully qualified protobuf message name of the record value.',
      },
      ce_time: {
        type: 'string',
        format: 'date-time',
        description: 'When the fact happened (RFC 3339, UTC).',
      },
      'content-type': {
        type: 'string',
        const: 'application/protobuf',
        description: 'Data content type; absent on tombstones, which have no data.',
      },
      traceparent: {
        type: 'string',
        pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
        description:
          'W3C Trace Context of the publish span; continue the trace from it when consuming.',
      },
      tracestate: { type: 'string', description: 'W3C Trace Context vendor state, when any.' },
    },
  };
}

/** The AsyncAPI 3.0 document of the catalog. Pure: the same catalog gives the same document. */
export function buildAsyncApi(catalog: Catalog): Record<string, Json> {
  const channels: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  const messages: Record<string, Json> = {};
  const acls = kafkaAcls(catalog.topics);
  const schemas = new SchemaSet(catalog.registry, personalMarks(catalog));

  for (const topic of catalog.topics) {
    const messageId = topic.type;
    const channelRef = { $ref: `#/channels/${topic.name}` };
    const cleanupPolicy = topic.compacted ? 'compact' : 'delete';
    const readable = topic.analyticsReadable ?? true;
    const personal = topic.personalData ?? [];
    const description = [
      topic.summary ?? '',
      '',
      `- Record key: ${topic.keyDescription} (UTF-8 string); records of one key stay in order.`,
      `- Record value: \`${topic.type}\` (protobuf binary), defined in \`proto/${topic.protoFile}\`.`,
      topic.compacted
        ? '- Compacted: the latest record per key is the current state; a record with a null value (tombstone) means the entity was deleted.'
        : `- Retention: ${describeRetention(topic.retentionMs)} (cleanup.policy delete).`,
      `- Produced by: ${list(topic.producers)}.`,
      `- Consumed by: ${list(topic.consumers)}${topic.consumers.length > 0 ? ` (failed records go to \`${topic.name}.dlq\`)` : ''}.`,
      readable
        ? '- Analytics: readable (the analytics principal may consume it; never its `.dlq` twin).'
        : '- Analytics: not readable (operators and the consuming services only).',
      personal.length === 0
        ? '- Personal data: none.'
        : `- Personal data: ${personal.map((f) => `\`${f.field}\` (${f.kind}, ${f.form}: ${f.holds})`).join('; ')}.`,
    ]
      .join('\n')
      .trim();

    channels[topic.name] = {
      address: topic.name,
      title: topic.name,
      description,
      messages: { [shortName(topic.type)]: { $ref: `#/components/messages/${messageId}` } },
      bindings: {
        kafka: {
          topic: topic.name,
          topicConfiguration: {
            'cleanup.policy': [cleanupPolicy],
            'retention.ms': topic.retentionMs,
          },
          bindingVersion: KAFKA_BINDING_VERSION,
        },
      },
      'x-marquee-producers': [...topic.producers],
      'x-marquee-consumers': [...topic.consumers],
      // Who may do what on the topic (docs/security.md, Kafka): principal → allowed operations.
      'x-kafka-acls': topicAcls(acls, topic.name),
      'x-analytics-readable': analyticsReadable(topic),
      'x-signed': isSignedTopic(topic.name),
    };

    operations[`${topic.name}.send`] = {
      action: 'send',
      channel: channelRef,
      title: `Publish ${topic.name}`,
      summary: `${list(topic.producers)} publish${topic.producers.length === 1 ? 'es' : ''} ${topic.type}.`,
      messages: [{ $ref: `#/channels/${topic.name}/messages/${shortName(topic.type)}` }],
    };
    if (topic.consumers.length > 0) {
      operations[`${topic.name}.receive`] = {
        action: 'receive',
        channel: channelRef,
        title: `Consume ${topic.name}`,
        summary: `Consumed by ${list(topic.consumers)}; each service in its own consumer group.`,
        messages: [{ $ref: `#/channels/${topic.name}/messages/${shortName(topic.type)}` }],
      };
    }

    messages[messageId] = {
      name: shortName(topic.type),
      title: topic.type,
      summary: topic.summary ?? topic.type,
      contentType: 'application/protobuf',
      headers: headersSchema(topic),
      description: [
        `The record value is a \`${topic.type}\` in the protobuf binary encoding (\`${PROTOBUF_SCHEMA_FORMAT}\`),`,
        `defined in \`proto/${topic.protoFile}\`; decode it with code generated from proto/ or with the`,
        'descriptor set `pnpm schema:image` writes (docs/analytics-schema.md). The payload schema is that',
        'message in the protobuf JSON mapping (what `MessageToJson` or `toJson` of a decoded record gives):',
        'lowerCamelCase field names, 64-bit integers as strings, enums by name, timestamps in RFC 3339;',
        'fields at their default value are left out. `x-personal-data: true` marks personal fields.',
      ].join('\n'),
      payload: schemas.message(topic.type),
      bindings: {
        kafka: {
          key: { type: 'string', description: topic.keyDescription },
          bindingVersion: KAFKA_BINDING_VERSION,
        },
      },
      'x-protobuf-message': topic.type,
      'x-proto-file': `proto/${topic.protoFile}`,
      'x-tombstones': topic.compacted,
      'x-marquee-personal-data': personal.map((f) => ({
        field: f.field,
        kind: f.kind,
        form: f.form,
        holds: f.holds,
      })),
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Marquee Kafka topics',
      version: catalog.version,
      description: [
        'Every topic the Marquee platform produces, generated from the topic catalog',
        '(`packages/proto/src/topics.ts`) by `node scripts/generate-asyncapi.ts`; do not edit by hand.',
        '',
        'Records follow the CloudEvents Kafka protocol binding in binary content mode: the',
        'CloudEvents attributes are `ce_*` headers, the value is the bare protobuf message named by',
        '`ce_type`, the key is the entity id. Delivery is at least once: deduplicate on `ce_id`, or on',
        "the message's own version where it has one. Topic names carry no environment prefix; a",
        'deployment may add one. Partition and replica counts are not part of the contract: the',
        "deployment sets them (the Helm chart's topic list). Consumed topics have a `<topic>.dlq`",
        'twin holding the records a consumer gave up on, with their original headers.',
        'Payload schemas: each message in the protobuf JSON mapping (lowerCamelCase field names,',
        '64-bit integers as strings, enums by name, timestamps as RFC 3339 strings), generated from',
        'the .proto files, nested messages and enums under `components/schemas`, personal fields',
        'marked `x-personal-data: true`. They describe the fields; the bytes on the wire stay binary',
        'protobuf. To decode records without generating code, `pnpm schema:image` writes all of',
        'proto/ as one FileDescriptorSet (docs/analytics-schema.md).',
        'A consumer in Python: `examples/python-consumer/README.md`.',
        '',
        'Access: the brokers authenticate every client (SASL SCRAM or PLAIN, over TLS in production)',
        'and allow only what `x-kafka-acls` of each channel lists; the `analytics` principal reads the',
        'channels marked `x-analytics-readable` and writes nothing. Records of channels marked',
        "`x-signed` carry `marquee-signature`, the producing service's HMAC over the record;",
        'consumers dead-letter records without a valid one. See docs/security.md, "Kafka".',
      ].join('\n'),
    },
    defaultContentType: 'application/protobuf',
    servers: {
      kafka: {
        host: '{bootstrap}',
        protocol: 'kafka',
        description: "The deployment's Kafka bootstrap servers (`KAFKA_BROKERS` of the services).",
        variables: {
          bootstrap: { default: 'kafka:9092', description: 'host:port of a bootstrap broker' },
        },
      },
    },
    channels,
    operations,
    components: { schemas: sortedSchemas(schemas.schemas), messages },
  };
}

/** `x-personal-data` on the fields the catalog lists, resolved to the messages that declare them. */
function personalMarks(catalog: Catalog): FieldMarks {
  const marks = new Map<string, Map<string, Record<string, Json>>>();
  for (const topic of catalog.topics) {
    for (const personal of topic.personalData ?? []) {
      const { message, field } = resolveFieldPath(catalog.registry, topic.type, personal.field);
      const fields = marks.get(message) ?? new Map<string, Record<string, Json>>();
      marks.set(message, fields);
      fields.set(field, {
        'x-personal-data': true,
        'x-personal-data-kind': personal.kind,
        'x-personal-data-form': personal.form,
      });
    }
  }
  return marks;
}

/** The named schemas by name, so that the document does not depend on the order topics reach them. */
function sortedSchemas(schemas: Record<string, JsonSchema>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** Errors and warnings of @asyncapi/parser for the document (information and hints are left out). */
export async function validateAsyncApi(text: string): Promise<string[]> {
  const { Parser } = await import('@asyncapi/parser');
  const { diagnostics } = await new Parser().parse(text);
  return diagnostics
    .filter((d) => d.severity <= 1)
    .map((d) => `${d.severity === 0 ? 'error' : 'warning'} ${d.path.join('.')}: ${d.message}`);
}

/** The file's text: YAML, formatted by prettier with the repository's settings. */
export async function renderAsyncApi(doc: Record<string, Json>): Promise<string> {
  const { stringify } = await import('yaml');
  const prettier = await import('prettier');
  const raw = [
    '# Generated by `node scripts/generate-asyncapi.ts` from packages/proto/src/topics.ts and proto/; do not edit.',
    stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }),
  ].join('\n');
  const options = (await prettier.resolveConfig(outputPath)) ?? {};
  return prettier.format(raw, { ...options, filepath: outputPath });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  // `--file <path>` writes or checks another file (the tests use it); the default is the docs one.
  const fileArg = args.indexOf('--file');
  const file = fileArg >= 0 && args[fileArg + 1] ? resolve(args[fileArg + 1]!) : outputPath;
  const text = await renderAsyncApi(buildAsyncApi(await loadCatalog()));
  const problems = await validateAsyncApi(text);
  if (problems.length > 0) {
    console.error('generate-asyncapi: the generated document is not valid AsyncAPI 3:');
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  const shown = relative(root, file);
  if (check) {
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (committed !== text) {
      console.error(
        `generate-asyncapi: FAIL: ${shown} is not what the topic catalog generates.\n` +
          "Run 'node scripts/generate-asyncapi.ts' (or 'pnpm generate') and commit the result.",
      );
      process.exit(1);
    }
    console.log(`generate-asyncapi: ${shown} is up to date and valid AsyncAPI 3`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`generate-asyncapi: wrote ${shown}`);
}

if (import.meta.main) await main();

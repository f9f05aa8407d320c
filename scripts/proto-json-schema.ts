/**
 * JSON Schemas of protobuf messages, as the protobuf JSON mapping
 * (https://protobuf.dev/programming-guides/json/) renders them, read from the contract itself:
 * `buf build` compiles proto/ into a FileDescriptorSet and @bufbuild/protobuf (Buf's protobuf
 * runtime, a dependency of @marquee/proto) turns it into descriptors. Not a plugin: Buf's
 * `protoc-gen-jsonschema` (bufbuild/protoschema-plugins) is a Go program that every clone and CI
 * would have to build with a Go toolchain, and the npm converters (e.g. protobuf-jsonschema) parse
 * .proto text on their own instead of using what buf compiled. The mapping's rules are few:
 *
 * - field names: the field's `json_name` (lowerCamelCase of the proto name);
 * - 32-bit integers: JSON numbers; 64-bit integers: decimal strings;
 * - float/double: numbers, or the strings "NaN", "Infinity", "-Infinity";
 * - bytes: base64 strings; enums: the value's name; maps: objects keyed by the map key as a string;
 * - google.protobuf.Timestamp: RFC 3339 string; Duration: "1.5s"; wrappers: the wrapped value;
 *   Struct/Value/ListValue: any JSON; Empty: `{}`; FieldMask: comma-separated paths;
 * - fields at their default value are left out, so no field is required.
 *
 * Every message and enum reached becomes a named schema (key: its full protobuf name) referred to
 * with `$ref`; the caller places them under `components/schemas`. Descriptions are the comments of
 * the .proto files.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  ScalarType,
  createFileRegistry,
  fromBinary,
  type FileRegistry,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

const root = fileURLToPath(new URL('..', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonSchema = { [key: string]: Json };

/** The buf CLI of the workspace (the one `pnpm generate` runs). */
export const bufBin = join(root, 'packages/proto/node_modules/.bin/buf');

/**
 * proto/ compiled by `buf build` as a binary FileDescriptorSet: imports (the well-known types)
 * included, source info (comments) kept. `output` is a path, or `-` for the bytes themselves.
 */
export function buildDescriptorSet(output = '-'): Uint8Array {
  const r = spawnSync(
    bufBin,
    ['build', '--as-file-descriptor-set', '-o', `${output}#format=binpb`],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.status !== 0) {
    throw new Error(
      `buf build failed (${r.status ?? r.signal}): ${r.stderr?.toString() ?? r.error}`,
    );
  }
  return new Uint8Array(r.stdout);
}

/** The descriptors of every file of proto/ and of what it imports. */
export function loadRegistry(descriptorSet: Uint8Array = buildDescriptorSet()): FileRegistry {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
}

/** The `$ref` of a named schema. */
export const schemaRef = (typeName: string): string => `#/components/schemas/${typeName}`;

// --- comments --------------------------------------------------------------------------------

/** The source path of a message, enum, field or enum value (descriptor.proto's field numbers). */
function sourcePath(desc: DescMessage | DescEnum | DescField): number[] {
  if (desc.kind === 'field') {
    const parent = desc.parent;
    return [...sourcePath(parent), 2, parent.proto.field.indexOf(desc.proto)];
  }
  const parent = desc.parent;
  if (desc.kind === 'message') {
    return parent
      ? [...sourcePath(parent), 3, parent.proto.nestedType.indexOf(desc.proto)]
      : [4, desc.file.proto.messageType.indexOf(desc.proto)];
  }
  return parent
    ? [...sourcePath(parent), 4, parent.proto.enumType.indexOf(desc.proto)]
    : [5, desc.file.proto.enumType.indexOf(desc.proto)];
}

/** The leading comment (or else the trailing one) in the .proto file, tidied into one paragraph per blank line. */
function comment(file: DescFile, path: number[]): string | undefined {
  const location = file.proto.sourceCodeInfo?.location.find(
    (l) => l.path.length === path.length && l.path.every((n, i) => n === path[i]),
  );
  const text = location?.leadingComments || location?.trailingComments;
  if (!text) return undefined;
  return text
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .join(' '),
    )
    .filter(Boolean)
    .join('\n\n');
}

const describe = (desc: DescMessage | DescEnum | DescField): string | undefined =>
  comment(desc.kind === 'field' ? desc.parent.file : desc.file, sourcePath(desc));

// --- types -----------------------------------------------------------------------------------

function scalarSchema(type: ScalarType): JsonSchema {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'string', pattern: '^-?[0-9]+$', format: 'int64' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: 'string', pattern: '^[0-9]+$', format: 'uint64' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', format: 'int32' };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', minimum: 0, format: 'uint32' };
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return {
        oneOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }],
      };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
  }
}

/** The well-known types whose JSON form is not an object of their fields. */
function wellKnownSchema(message: DescMessage): JsonSchema | undefined {
  switch (message.typeName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time', description: 'RFC 3339, UTC (`Z`).' };
    case 'google.protobuf.Duration':
      return {
        type: 'string',
        pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$',
        description: 'Seconds with an `s` suffix, e.g. `1.5s`.',
      };
    case 'google.protobuf.FieldMask':
      return { type: 'string', description: 'Comma-separated lowerCamelCase field paths.' };
    case 'google.protobuf.Struct':
      return { type: 'object', description: 'Any JSON object.' };
    case 'google.protobuf.Value':
      return { description: 'Any JSON value.' };
    case 'google.protobuf.ListValue':
      return { type: 'array', description: 'Any JSON array.' };
    case 'google.protobuf.Empty':
      return { type: 'object', additionalProperties: false };
    case 'google.protobuf.Any':
      return {
        type: 'object',
        required: ['@type'],
        properties: { '@type': { type: 'string' } },
        description: 'A message of the type named by `@type`, with its fields beside it.',
      };
  }
  if (message.file.name === 'google/protobuf/wrappers') {
    return scalarSchema(message.fields[0]!.scalar!);
  }
  return undefined;
}

/** Marks on fields, by full message name and proto field name. */
export type FieldMarks = ReadonlyMap<string, ReadonlyMap<string, { [key: string]: Json }>>;

/** Collects the named schemas of messages and enums as they are reached. */
export class SchemaSet {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly registry: FileRegistry;
  /** Extra keywords for some fields (e.g. `x-personal-data`), merged into the field's schema. */
  private readonly marks: FieldMarks;

  constructor(registry: FileRegistry, marks: FieldMarks = new Map()) {
    this.registry = registry;
    this.marks = marks;
  }

  /** `{ $ref }` to the schema of a message (added with everything it reaches). */
  message(typeName: string): JsonSchema {
    const desc = this.registry.getMessage(typeName);
    if (!desc) throw new Error(`no message ${typeName} in the descriptor set`);
    return this.messageRef(desc);
  }

  private messageRef(desc: DescMessage): JsonSchema {
    const name = desc.typeName;
    if (!(name in this.schemas)) {
      this.schemas[name] = {}; // reserved first: messages may refer to themselves
      this.schemas[name] = this.messageSchema(desc);
    }
    return { $ref: schemaRef(name) };
  }

  private enumRef(desc: DescEnum): JsonSchema {
    const name = desc.typeName;
    if (!(name in this.schemas)) {
      const description = describe(desc);
      this.schemas[name] = {
        title: name,
        type: 'string',
        enum: desc.values.map((v) => v.name),
        ...(description ? { description } : {}),
      };
    }
    return { $ref: schemaRef(name) };
  }

  private messageSchema(desc: DescMessage): JsonSchema {
    const wellKnown = wellKnownSchema(desc);
    const description = describe(desc);
    if (wellKnown) return { title: desc.typeName, ...wellKnown };
    const properties: Record<string, Json> = {};
    const marks = this.marks.get(desc.typeName);
    for (const field of desc.fields) {
      const fieldDescription = [
        describe(field),
        field.oneof
          ? `One of \`${field.oneof.name}\`: at most one of ${field.oneof.fields.map((f) => `\`${f.jsonName}\``).join(', ')} is set.`
          : undefined,
      ]
        .filter(Boolean)
        .join('\n\n');
      const schema = this.fieldSchema(field);
      properties[field.jsonName] = {
        // A `$ref` ignores keywords beside it (JSON Schema draft-07, which AsyncAPI schemas follow):
        // the field's own description and marks go beside an `allOf` of the reference instead.
        ...('$ref' in schema ? { allOf: [schema] } : schema),
        ...(fieldDescription ? { description: fieldDescription } : {}),
        ...(field.deprecated ? { deprecated: true } : {}),
        'x-protobuf-field': field.name,
        ...(marks?.get(field.name) ?? {}),
      };
    }
    return {
      title: desc.typeName,
      type: 'object',
      ...(description ? { description } : {}),
      properties,
    };
  }

  private fieldSchema(field: DescField): JsonSchema {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarSchema(field.scalar);
      case 'enum':
        return this.enumRef(field.enum);
      case 'message':
        return this.valueOf(field.message);
      case 'list':
        return {
          type: 'array',
          items:
            field.listKind === 'scalar'
              ? scalarSchema(field.scalar)
              : field.listKind === 'enum'
                ? this.enumRef(field.enum)
                : this.valueOf(field.message),
        };
      case 'map':
        return {
          type: 'object',
          'x-protobuf-map-key': ScalarType[field.mapKey].toLowerCase(),
          additionalProperties:
            field.mapKind === 'scalar'
              ? scalarSchema(field.scalar)
              : field.mapKind === 'enum'
                ? this.enumRef(field.enum)
                : this.valueOf(field.message),
        };
    }
  }

  /** A field of message type: a `$ref`, or the JSON form of a well-known type inline. */
  private valueOf(desc: DescMessage): JsonSchema {
    const wellKnown = wellKnownSchema(desc);
    return wellKnown ? { ...wellKnown, 'x-protobuf-type': desc.typeName } : this.messageRef(desc);
  }
}

/**
 * Resolves dotted proto field paths from a message (`tickets.item.unit_price`) to the message
 * that declares the last field and that field's proto name; throws on a path that names no field.
 */
export function resolveFieldPath(
  registry: FileRegistry,
  typeName: string,
  path: string,
): { message: string; field: string } {
  let message = registry.getMessage(typeName);
  const parts = path.split('.');
  for (const [i, part] of parts.entries()) {
    const field = message?.fields.find((f) => f.name === part);
    if (!message || !field) throw new Error(`${typeName} has no field ${path}`);
    if (i === parts.length - 1) return { message: message.typeName, field: field.name };
    message = field.message;
  }
  throw new Error(`empty field path on ${typeName}`);
}

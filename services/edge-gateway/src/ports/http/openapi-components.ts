/**
 * Moves every named schema of the document (a schema with a `title`: the families' error bodies,
 * the big shapes routes share) to `components/schemas/<title>` and puts a `$ref` where it was, so a
 * client generator makes one type of each and the document says each shape once.
 *
 * A title names one shape: two different schemas with the same title are a defect of the routes,
 * and building the document throws (so `pnpm generate` and the unit tests say which). A named
 * schema nested in another is moved too, and referenced from the one that holds it. A use's own
 * `description` (a route's wording of what an error means there) stays beside its `$ref`.
 */

type Json = Record<string, unknown>;

/** Keywords whose value is data (an example, a constant), never a schema to look into. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);
/** Keywords whose value maps names to schemas (a property named `title` is not a title). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A component name OpenAPI accepts (`^[a-zA-Z0-9._-]+$`). */
const componentName = (title: string) => title.replace(/[^A-Za-z0-9._-]+/g, '_');

/** JSON with sorted keys: two schemas are the same shape when this is the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export function hoistNamedSchemas<T extends Json>(document: T): T {
  const components = ((document as Json).components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Record<string, Json>;
  const texts = new Map<string, string>(
    Object.entries(schemas).map(([name, schema]) => [name, canonical(schema)]),
  );

  const schema = (node: Json): Json => {
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (SCHEMA_MAPS.has(key) && isObject(value)) {
        for (const [name, sub] of Object.entries(value))
          if (isObject(sub)) value[name] = schema(sub);
      } else if (Array.isArray(value)) {
        node[key] = value.map((item) => (isObject(item) ? schema(item) : item));
      } else if (isObject(value)) {
        node[key] = schema(value);
      }
    }
    if (typeof node.title !== 'string') return node;
    // What a use says of the shape there (a route's own wording of an error) stays with the use.
    const { description, ...shape } = node;
    const name = componentName(node.title);
    const text = canonical(shape);
    const known = texts.get(name);
    if (known === undefined) {
      texts.set(name, text);
      schemas[name] = shape;
    } else if (known !== text) {
      throw new Error(
        `Two different schemas are titled ${JSON.stringify(node.title)}: give each shape its own title`,
      );
    }
    const ref: Json = { $ref: `#/components/schemas/${name}` };
    if (typeof description === 'string') ref.description = description;
    return ref;
  };

  /** The schemas of an operation: parameters, request body, responses and their headers. */
  const media = (content: unknown) => {
    if (!isObject(content)) return;
    for (const type of Object.values(content))
      if (isObject(type) && isObject(type.schema)) type.schema = schema(type.schema);
  };
  const inResponse = (response: Json) => {
    media(response.content);
    for (const header of Object.values((response.headers ?? {}) as Record<string, Json>))
      if (isObject(header.schema)) header.schema = schema(header.schema);
  };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue;
      for (const parameter of (operation.parameters ?? []) as Json[])
        if (isObject(parameter.schema)) parameter.schema = schema(parameter.schema);
      if (isObject(operation.requestBody)) media(operation.requestBody.content);
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>))
        inResponse(response);
    }
  }
  for (const response of Object.values((components.responses ?? {}) as Record<string, Json>))
    inResponse(response);
  components.schemas = Object.fromEntries(
    Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)),
  );
  return document;
}

// The AsyncAPI contract of the Kafka topics (scripts/generate-asyncapi.ts). Run by `pnpm test`
// (scripts/test.mjs) after the `--check` step; alone: `pnpm exec vitest run scripts/generate-asyncapi.test.ts`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from '@asyncapi/parser';
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
    // Without a protobuf schema parser registered the parser keeps the payload as written.
    for (const message of document!.messages().all()) {
      expect(message.json().payload.schemaFormat, message.id()).toBe(PROTOBUF_SCHEMA_FORMAT);
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
      expect(message.payload.schemaFormat).toBe(PROTOBUF_SCHEMA_FORMAT);
      expect(message.payload.schema).toContain(`import "${topic.protoFile}";`);
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

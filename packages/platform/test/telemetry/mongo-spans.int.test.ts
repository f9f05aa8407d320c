/**
 * Database spans: a program started with `node --import <dist>/telemetry/register.js` that uses the
 * platform's connectMongo exports one CLIENT span per MongoDB command it runs inside a span, as a
 * child of that span, with the command's shape but none of its values; and none for a command
 * outside any span. Against the real Mongo-wire server.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeIntegration } from '../../src/testing/index.js';
import { buildPlatformSubset, Collector, logLines, runNode, SPAN_KIND } from './otlp-harness.js';

const fixture = fileURLToPath(new URL('./fixtures/mongo-app.mjs', import.meta.url));

describeIntegration('MongoDB driver spans', ({ mongoUrl }) => {
  const collector = new Collector();
  let result: Awaited<ReturnType<typeof runNode>>;

  beforeAll(async () => {
    const distDir = await buildPlatformSubset('marquee-mongo-spans-test', [
      'telemetry/register.ts',
      'telemetry/index.ts',
      'mongo/index.ts',
      'logger/index.ts',
    ]);
    const port = await collector.start();
    result = await runNode(distDir, fixture, {
      ...Collector.tracesTo(port, 'mongo-probe'),
      MONGO_URL: mongoUrl,
      PROBE_DB: `spans_${randomBytes(4).toString('hex')}`,
    });
  }, 180_000);
  afterAll(() => collector.stop());

  it('exports one span per command under the span that ran it, without values', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(logLines(result.stdout)).toContainEqual({ probe: 'done' });

    const spans = collector.spans();
    const parent = spans.find((span) => span.name === 'probe work');
    const database = spans.filter(
      (span) => span.scope === '@opentelemetry/instrumentation-mongodb',
    );
    const commands = database.map((span) => span.name);
    expect(commands).toEqual(
      expect.arrayContaining([expect.stringMatching(/^insert /), expect.stringMatching(/^find /)]),
    );
    for (const span of database) {
      expect(span.kind).toBe(SPAN_KIND.CLIENT);
      expect(span.parentSpanId).toBe(parent?.spanId);
    }
    // The count ran outside any span: no span of its own.
    expect(commands.some((name) => /aggregate|count/.test(name))).toBe(false);
    // The filter's value never reaches an attribute.
    expect(JSON.stringify(database.map((span) => span.attributes))).not.toContain('do-not-export');
    // The find's statement keeps its shape, the value masked.
    const find = database.find((span) => span.name.startsWith('find '));
    const statement = find?.attributes.find((a) => a.key === 'db.query.text')?.value.stringValue;
    expect(statement).toContain('"token":"?"');
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKafkaBus, ensureTopics, type EventBus, type TopicDef } from '../../src/bus/index.js';
import { describeIntegration, uniqueName, waitFor } from '../../src/testing/index.js';

/**
 * A consumer that crashes (SIGKILL: no LeaveGroup, no commit, its sockets just go) must not hold its
 * partitions for long: with the bus's default session timeout the group coordinator gives them to
 * the surviving member, which consumes a record published after the crash within 15 s. With
 * kafkajs's own default (30 s) the partitions of the dead member stand still for half a minute.
 */

const PARTITIONS = 3;

/** Plain text records: the codec is not what this test is about. */
const textTopic = (name: string): TopicDef<string> => ({
  name,
  type: 'marquee.test.v1.Text',
  keyDescription: 'any',
  compacted: false,
  retentionMs: 60 * 60 * 1000,
  producer: 'platform-tests',
  codec: {
    encode: (text) => Buffer.from(text, 'utf8'),
    decode: (bytes) => Buffer.from(bytes).toString('utf8'),
  },
});

/**
 * The member that crashes: a process of its own with a bus of the platform's sources, built with
 * the defaults, subscribed to the group; one JSON line per handled record on stdout.
 */
const victimProgram = `
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    // The sources are TypeScript imported as '.js' (what tsc emits); Node strips the types.
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts'))
      specifier = specifier.slice(0, -3) + '.ts';
    return next(specifier, context);
  },
});
const [busModule, topicName, group] = process.argv.slice(1);
const { createKafkaBus } = await import(busModule);
const bus = createKafkaBus({
  ...JSON.parse(process.env.VICTIM_KAFKA),
  clientId: 'crash-victim',
  source: '//marquee/test',
  kafkaLogLevel: 'error',
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const topic = {
  name: topicName, type: 'marquee.test.v1.Text', keyDescription: 'any', compacted: false,
  retentionMs: 3600000, producer: 'platform-tests',
  codec: { encode: (t) => Buffer.from(t), decode: (b) => Buffer.from(b).toString('utf8') },
};
await bus.subscribe(topic, { group, fromBeginning: true }, async (event) => {
  process.stdout.write(JSON.stringify({ value: event.value, partition: event.partition }) + '\\n');
});
await bus.start();
`;

describeIntegration('a crashed consumer', ({ kafka: kafkaAccess }) => {
  const topic = textTopic(uniqueName('consumer-crash'));
  const group = uniqueName('consumer-crash');
  const kafka = new Kafka({
    clientId: 'consumer-crash-test',
    ...kafkaAccess,
    logLevel: logLevel.NOTHING,
  });
  let producer: Producer;
  let victim: ChildProcess | undefined;
  let survivor: EventBus | undefined;
  const victimSaw: string[] = [];
  const survivorSaw: string[] = [];

  /** One record on every partition, so whoever holds a partition sees one of this round. */
  const publishRound = async (round: string) => {
    await producer.send({
      topic: topic.name,
      messages: Array.from({ length: PARTITIONS }, (_, partition) => ({
        partition,
        key: `${round}-${partition}`,
        value: Buffer.from(`${round}/${partition}`),
      })),
    });
  };

  beforeAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, [topic], { numPartitions: PARTITIONS, deadLetters: true });
    await admin.disconnect();
    producer = kafka.producer();
    await producer.connect();
  });

  afterAll(async () => {
    victim?.kill('SIGKILL');
    await survivor?.close();
    await producer?.disconnect();
  });

  it('gives its partitions to the other member of the group, which consumes a new record within 15 s', async () => {
    victim = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        victimProgram,
        fileURLToPath(new URL('../../src/bus/index.ts', import.meta.url)),
        topic.name,
        group,
      ],
      // Brokers and login through the environment, not argv: no password in the process list.
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, VICTIM_KAFKA: JSON.stringify(kafkaAccess) },
      },
    );
    createInterface({ input: victim.stdout! }).on('line', (line) => {
      victimSaw.push((JSON.parse(line) as { value: string }).value);
    });
    const victimExited = new Promise((resolve) => victim!.once('exit', resolve));

    survivor = createKafkaBus({
      ...kafkaAccess,
      clientId: 'crash-survivor',
      source: '//marquee/test',
      kafkaLogLevel: 'error',
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    await survivor.subscribe(topic, { group, fromBeginning: true }, async (event) => {
      survivorSaw.push(event.value!);
    });
    await survivor.start();

    // Both members hold partitions: each has handled a record of the same round, published after
    // both had joined. Rounds repeat until then (joins and the rebalance take their time).
    let shared: string | undefined;
    for (let n = 0; n < 60 && shared === undefined; n += 1) {
      const round = `warm${n}`;
      await publishRound(round);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const mine = (seen: string[]) => seen.some((value) => value.startsWith(`${round}/`));
      if (mine(victimSaw) && mine(survivorSaw)) shared = round;
    }
    expect(shared, 'both members consumed records of one round').toBeDefined();
    const victimPartitions = new Set(
      victimSaw.filter((value) => value.startsWith(`${shared}/`)).map((v) => v.split('/')[1]),
    );

    // The crash: no LeaveGroup, no last commit, the connections just drop.
    victim.kill('SIGKILL');
    await victimExited;
    await publishRound('after-crash');

    // Every record of the round, those on the dead member's partitions included.
    await waitFor(
      // Distinct: a record may come twice (at least once delivery) when a rebalance moves it.
      () =>
        new Set(survivorSaw.filter((value) => value.startsWith('after-crash/'))).size ===
        PARTITIONS,
      { timeoutMs: 15_000, intervalMs: 100, description: 'the survivor consuming every partition' },
    );
    expect(victimPartitions.size).toBeGreaterThan(0);
    expect(
      [...victimPartitions].every((partition) => survivorSaw.includes(`after-crash/${partition}`)),
    ).toBe(true);
  });
});

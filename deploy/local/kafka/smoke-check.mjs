#!/usr/bin/env node
// End-to-end check of the local Kafka broker with kafkajs, the way the bus adapter uses it:
// explicit topic creation, an idempotent producer with acks=-1, a consumer group that commits only
// after handling, and (with phases) durability of data and committed offsets across a restart.
//
// usage: node deploy/local/kafka/smoke-check.mjs [brokers] [--phase all|before|after] [--topic NAME]
//   all    (default) create, produce, consume+commit, produce more, re-join: only the new records
//   before create, produce 10, consume+commit them, produce 5 more left uncommitted
//   after  (after `infra.sh restart kafka`) the topic, the 15 records and the group's committed
//          offsets survived: the group gets exactly the 5 uncommitted records
// Exit 0 on success, 1 on a failed check.
import { loadPlatformDep } from '../platform-deps.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const brokers =
  (args[0] && !args[0].startsWith('--') ? args[0] : process.env.KAFKA_BROKERS) ?? '127.0.0.1:19092';
const phase = opt('phase', 'all');
if (!['all', 'before', 'after'].includes(phase)) {
  console.error(`unknown --phase '${phase}' (all, before, after)`);
  process.exit(2);
}
const topic = opt(
  'topic',
  phase === 'all' ? `marquee-smoke-${Date.now().toString(36)}` : 'marquee-smoke-restart',
);
const group = `${topic}-group`;

const { Kafka, logLevel, CompressionTypes, Partitioners } = await loadPlatformDep('kafkajs');
const kafka = new Kafka({
  clientId: 'marquee-smoke',
  brokers: brokers.split(','),
  // kafkajs logs retriable errors (a coordinator still loading right after a broker start) as
  // ERROR; failures that matter surface as exceptions and fail a check.
  logLevel: logLevel.NOTHING,
});

let passed = 0;
let failed = 0;
function check(cond, msg) {
  if (cond) {
    passed++;
    console.log(`ok   ${msg}`);
  } else {
    failed++;
    console.log(`FAIL ${msg}`);
  }
}

async function produce(from, count) {
  // idempotent => kafkajs requires acks -1 and maxInFlightRequests 1 for ordering guarantees
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const t0 = performance.now();
  const res = await producer.send({
    topic,
    acks: -1,
    compression: CompressionTypes.None,
    messages: Array.from({ length: count }, (_, i) => ({
      key: `k${(from + i) % 4}`,
      value: `v${from + i}`,
      headers: { ce_id: `id-${from + i}`, ce_type: 'marquee.smoke.v1.Test' },
    })),
  });
  await producer.disconnect();
  check(
    res.every((r) => r.errorCode === 0),
    `produced ${count} records idempotently, acks=-1 (${(performance.now() - t0).toFixed(0)} ms)`,
  );
}

// Joins the group, takes records until `expected` arrived (or the wait runs out), committing each
// offset only after "handling" it, then leaves. Returns the values seen.
async function consume(expected, waitMs = 20_000) {
  // maxWaitTimeInMs: disconnect waits for the fetch in flight, 5 s by default; short keeps it quick.
  const consumer = kafka.consumer({
    groupId: group,
    sessionTimeout: 10_000,
    heartbeatInterval: 1000,
    maxWaitTimeInMs: 250,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const seen = [];
  const t0 = performance.now();
  let done;
  const finished = new Promise((r) => (done = r));
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      seen.push(message.value.toString());
      if (message.headers?.ce_id == null) throw new Error('headers lost');
      await consumer.commitOffsets([
        { topic, partition, offset: (BigInt(message.offset) + 1n).toString() },
      ]);
      if (seen.length >= expected) done();
    },
  });
  const timer = setTimeout(done, waitMs);
  await finished;
  clearTimeout(timer);
  // a short grace period shows up records that should not be there
  await new Promise((r) => setTimeout(r, 1000));
  await consumer.disconnect();
  console.log(`     consumed ${seen.length} in ${(performance.now() - t0).toFixed(0)} ms`);
  return seen;
}

async function committedTotal() {
  const admin = kafka.admin();
  await admin.connect();
  const [res] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  await admin.disconnect();
  return res.partitions.reduce((s, p) => s + Math.max(0, Number(p.offset)), 0);
}

const sorted = (xs) => [...xs].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));

try {
  const admin = kafka.admin();
  await admin.connect();
  if (phase !== 'after') {
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 3,
          replicationFactor: 1,
          configEntries: [{ name: 'cleanup.policy', value: 'delete' }],
        },
      ],
    });
    check(created, `created topic ${topic} with 3 partitions`);
  }
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  check(
    meta.topics[0]?.partitions.length === 3,
    `topic ${topic} has ${meta.topics[0]?.partitions.length} partitions`,
  );
  const offsets = await admin.fetchTopicOffsets(topic);
  const records = offsets.reduce((s, p) => s + Number(p.high) - Number(p.low), 0);
  await admin.disconnect();

  if (phase === 'after') {
    check(records === 15, `all 15 records survived the restart (found ${records})`);
    const committed = await committedTotal();
    check(
      committed === 10,
      `group ${group} committed offsets survived (sum ${committed}, want 10)`,
    );
    const seen = await consume(5);
    check(
      sorted(seen).join(',') === 'v10,v11,v12,v13,v14',
      `group resumed after the commit: got ${sorted(seen).join(',')}`,
    );
    const a = kafka.admin();
    await a.connect();
    await a.deleteTopics({ topics: [topic] });
    await a.deleteGroups([group]).catch(() => {});
    await a.disconnect();
  } else {
    await produce(0, 10);
    const first = await consume(10);
    check(
      sorted(first).join(',') === Array.from({ length: 10 }, (_, i) => `v${i}`).join(','),
      `group consumed v0..v9 (${first.length} records)`,
    );
    check((await committedTotal()) === 10, 'group committed offsets sum to 10');
    await produce(10, 5);
    if (phase === 'all') {
      const second = await consume(5);
      check(
        sorted(second).join(',') === 'v10,v11,v12,v13,v14',
        `re-joined group got only the new records: ${sorted(second).join(',')}`,
      );
      const a = kafka.admin();
      await a.connect();
      await a.deleteTopics({ topics: [topic] });
      await a.deleteGroups([group]).catch(() => {});
      await a.disconnect();
    } else {
      console.log(
        `     now run: infra.sh restart kafka && node ${process.argv[1]} ${brokers} --phase after`,
      );
    }
  }
} catch (err) {
  failed++;
  console.log(`FAIL ${err.message}`);
}
console.log(`kafka-smoke: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

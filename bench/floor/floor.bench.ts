/**
 * What the reserve loop of `cart-reserve` costs at the least on this machine: the CPU of each kind
 * of step the loop is made of, measured bare (no Marquee code, no tracing, no validation), and the
 * sum over the steps one reserve-and-release loop takes.
 *
 * - `http`: a JSON request and its answer over a kept-alive loopback connection, undici's `request`
 *   to a fastify route (client and server in this process: both sides counted).
 * - `grpc`: a unary call of grpc-js with a small message, client and server in this process.
 * - `mongo insert`, `mongo findAndModify`: the MongoDB driver against the Mongo-wire server of
 *   `infra.sh` (a cart-sized document, mostly one string as a packed cart is; findAndModify by
 *   `_id`), this process and the server. `mongo … (booking)`: the same with a document shaped like
 *   partner-reference's booking (17 fields, two nested tickets), and a find by `_id`: what the
 *   server's encoding and decoding of a document's fields cost.
 * - `kafka record`: kafkajs's idempotent producer (`acks: -1`, one record per send, as the outbox
 *   relay sends under a trickle) and a consumer group reading it, this process and the broker.
 *
 * The loop (docs/performance.md, "Buying"): the client's reserve and release reach the edge (2
 * HTTP), the edge calls cart (2 gRPC), cart calls 3p-connector (2 gRPC), the connector calls the
 * partner (2 HTTP); cart writes about 4.6 Mongo commands a loop, the reconciler 1, the partner
 * about 8 of its own (command stats of that benchmark); `booking-held` goes through Kafka to the
 * reconciler. The floor counts every command at the cheaper command's cost and only the one record
 * that is read (`booking-released` is written too): a lower bound, not an estimate.
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm --filter @marquee/bench floor
 * Env: FLOOR_BENCH_CLIENTS (16), FLOOR_BENCH_SECONDS (10, each step), MONGO_URL and KAFKA_BROKERS
 *      (without them those steps are left out, and so is the floor).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import * as grpc from '@grpc/grpc-js';
import Fastify from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import mongoose from 'mongoose';
import { Agent, request } from 'undici';
import { closedLoop, cpuMsPerLoop, ownCpuSeconds, round } from '../cart/closed-loop.ts';
import { positive } from '../env.ts';
import { cpuSecondsOf, infraPids } from '../stack-run.ts';

const CLIENTS = positive('FLOOR_BENCH_CLIENTS', 16, 1_000);
const SECONDS = positive('FLOOR_BENCH_SECONDS', 10, 600);
const WARMUP_SECONDS = 2;

/** Steps of one reserve-and-release loop through the edge, by kind (see the header). */
const LOOP = {
  http: 4,
  grpc: 4,
  mongoCommands: { cart: 4.6, reconciler: 1, partner: 8 },
  kafkaRecords: 1,
} as const;

/** A body of about the size of a booking request and answer. */
const MESSAGE = Buffer.from(
  JSON.stringify({
    booking: {
      event_id: 'vvG1zZ9pVbKbLz',
      inventory_token: randomBytes(24).toString('base64url'),
      tickets: [{ price_type_id: '1', price_level_id: '1', quantity: 1, price: '45.00' }],
      expires_at: new Date().toISOString(),
    },
  }),
);

interface StepResult {
  opsPerSecond: number;
  cpuMsPerOp: Record<string, number>;
  /** Kafka: records sent and read by the group, which should match. */
  records?: { sent: number; read: number };
}

/** `op` run by the closed-loop clients; CPU of this process and of the `infra` processes given. */
async function measure(op: () => Promise<unknown>, infra: Map<string, number>) {
  const result = await closedLoop(
    async (_client, _iteration, recorder) => {
      await op();
      if (recorder.measured(performance.now())) recorder.heldCount += 1;
    },
    {
      clients: CLIENTS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      drainMs: 5_000,
      sampleCpu: () => {
        const used = cpuSecondsOf(infra);
        used.set('node (both sides)', ownCpuSeconds());
        return used;
      },
    },
  );
  const perOp = cpuMsPerLoop(result.cpuSecondsInClock, result.completed);
  // `cpuMsPerLoop` leaves out the load generator, which here is both sides of the step.
  const total = Object.entries(perOp)
    .filter(([name]) => name !== 'all but the load generator')
    .reduce((sum, [, ms]) => sum + ms, 0);
  delete perOp['all but the load generator'];
  return {
    opsPerSecond: result.completedPerSecond,
    cpuMsPerOp: { ...perOp, total: round(total, 3) },
  } satisfies StepResult;
}

async function httpStep(): Promise<StepResult> {
  const server = Fastify({ logger: false });
  server.post('/bookings', async (req, reply) => reply.code(201).send(req.body));
  const address = await server.listen({ host: '127.0.0.1', port: 0 });
  const dispatcher = new Agent({ connections: CLIENTS });
  try {
    return await measure(async () => {
      const answer = await request(`${address}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: MESSAGE,
        dispatcher,
      });
      if (answer.statusCode !== 201) throw new Error(`http step answered ${answer.statusCode}`);
      await answer.body.json();
    }, new Map());
  } finally {
    await dispatcher.close();
    await server.close();
  }
}

async function grpcStep(): Promise<StepResult> {
  const bytes = (value: Buffer) => value;
  const definition = {
    call: {
      path: '/floor.Floor/Call',
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  } satisfies grpc.ServiceDefinition;
  const server = new grpc.Server();
  server.addService(definition, {
    call: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
      done(null, call.request),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = (message: Buffer) =>
    new Promise<Buffer>((resolve, reject) =>
      client.makeUnaryRequest(definition.call.path, bytes, bytes, message, (error, answer) =>
        error ? reject(error) : resolve(answer!),
      ),
    );
  try {
    return await measure(() => call(MESSAGE), new Map());
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
}

/** The fields the steps write; the document has more (`booking`). */
interface Booking {
  _id: string;
  status: string;
  updatedAt: Date;
  version: number;
}

/** A document shaped like partner-reference's booking of two tickets. */
function booking(n: number): Booking & Record<string, unknown> {
  const now = new Date();
  return {
    _id: `b${n}`,
    eventId: 'vvG1zZ9pVbKbLz',
    status: 'BOOKED',
    language: 'en',
    channelType: 'WEB',
    externalReference: `cart-${n}`,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + 600_000),
    currency: 'EUR',
    ticketsAmountMinor: 9_000,
    ticketsQuantity: 2,
    tickets: [1, 2].map((k) => ({
      ticketId: `b${n}-${k}`,
      areaId: 'A',
      rowId: 'R3',
      seat: 10 + k,
      priceTypeId: 'adult',
      amountMinor: 4_500,
    })),
    version: 1,
  };
}

async function mongoSteps(url: string): Promise<Record<string, StepResult>> {
  const client = new mongoose.mongo.MongoClient(url, { maxPoolSize: CLIENTS });
  await client.connect();
  const db = client.db(`floor_${randomBytes(4).toString('hex')}`);
  const docs = db.collection<{ _id: string; n: number; body: string }>('docs');
  const infra = new Map([...infraPids()].filter(([name]) => name.startsWith('ferretdb')));
  const body = MESSAGE.toString('base64').repeat(4); // about the size of a packed cart
  let sequence = 0;
  try {
    const insert = await measure(
      () => docs.insertOne({ _id: `d${(sequence += 1)}`, n: 0, body }),
      infra,
    );
    const written = sequence;
    const findAndModify = await measure(
      () =>
        docs.findOneAndUpdate(
          { _id: `d${1 + Math.floor(Math.random() * written)}` },
          { $inc: { n: 1 } },
          { returnDocument: 'after' },
        ),
      infra,
    );
    const bookings = db.collection<Booking>('bookings');
    let booked = 0;
    const bookingInsert = await measure(() => bookings.insertOne(booking((booked += 1))), infra);
    const bookingFindAndModify = await measure(
      () =>
        bookings.findOneAndUpdate(
          { _id: `b${1 + Math.floor(Math.random() * booked)}` },
          { $set: { status: 'RELEASED', updatedAt: new Date() }, $inc: { version: 1 } },
          { returnDocument: 'after' },
        ),
      infra,
    );
    const bookingFind = await measure(
      () => bookings.findOne({ _id: `b${1 + Math.floor(Math.random() * booked)}` }),
      infra,
    );
    return {
      'mongo insert': insert,
      'mongo findAndModify': findAndModify,
      'mongo insert (booking)': bookingInsert,
      'mongo findAndModify (booking)': bookingFindAndModify,
      'mongo find (booking)': bookingFind,
    };
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

async function kafkaStep(brokers: string[]): Promise<StepResult> {
  const kafka = new Kafka({ clientId: 'floor-bench', brokers, logLevel: logLevel.NOTHING });
  const topic = `floor-${randomBytes(4).toString('hex')}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId: topic, maxWaitTimeInMs: 1_000 });
  await Promise.all([producer.connect(), consumer.connect()]);
  await consumer.subscribe({ topic, fromBeginning: true });
  let read = 0;
  await consumer.run({ eachMessage: async () => void (read += 1) });
  const infra = new Map([...infraPids()].filter(([name]) => name.startsWith('kafka')));
  let sent = 0;
  try {
    const step = await measure(async () => {
      sent += 1;
      await producer.send({ topic, acks: -1, messages: [{ key: String(sent), value: MESSAGE }] });
    }, infra);
    return { ...step, records: { sent, read } };
  } finally {
    await Promise.all([producer.disconnect(), consumer.disconnect()]);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

/** The loop's floor from the steps measured: undefined when a kind of step was left out. */
function floorOf(steps: Record<string, StepResult>) {
  const cost = (name: string) => steps[name]?.cpuMsPerOp.total;
  const http = cost('http');
  const grpcCall = cost('grpc');
  const commands = [cost('mongo insert'), cost('mongo findAndModify')];
  const record = cost('kafka record');
  if (http === undefined || grpcCall === undefined || record === undefined) return undefined;
  if (commands.some((ms) => ms === undefined)) return undefined;
  const command = Math.min(...(commands as number[]));
  const { cart, reconciler, partner } = LOOP.mongoCommands;
  const parts = {
    http: LOOP.http * http,
    grpc: LOOP.grpc * grpcCall,
    'platform mongo commands': (cart + reconciler) * command,
    "partner's own mongo commands": partner * command,
    'kafka records': LOOP.kafkaRecords * record,
  };
  const total = Object.values(parts).reduce((sum, ms) => sum + ms, 0);
  return {
    steps: LOOP,
    cpuMsPerLoop: Object.fromEntries(
      Object.entries(parts).map(([name, ms]) => [name, round(ms, 2)]),
    ),
    total: round(total, 2),
    withoutThePartnersCommands: round(total - parts["partner's own mongo commands"], 2),
  };
}

async function main() {
  const steps: Record<string, StepResult> = {};
  steps.http = await httpStep();
  steps.grpc = await grpcStep();
  if (process.env.MONGO_URL) Object.assign(steps, await mongoSteps(process.env.MONGO_URL));
  if (process.env.KAFKA_BROKERS)
    steps['kafka record'] = await kafkaStep(process.env.KAFKA_BROKERS.split(','));
  console.log(
    JSON.stringify(
      {
        bench: 'the reserve loop, step by step, bare',
        clients: CLIENTS,
        secondsPerStep: SECONDS,
        steps,
        floor: floorOf(steps) ?? 'needs MONGO_URL and KAFKA_BROKERS',
        machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg() },
      },
      null,
      2,
    ),
  );
}

await main();

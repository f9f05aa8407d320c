#!/usr/bin/env node
// Waits until the local Kafka broker and/or Mongo-wire server really answer, by making the calls a
// service would make: a Kafka admin metadata request (describeCluster + listTopics) and a Mongo
// `ping` through mongoose. A listening port alone is not enough: the Kafka broker accepts TCP
// connections seconds before it can serve metadata.
//
// usage: node wait-ready.mjs kafka <brokers> [timeoutSeconds] [pid]
//        node wait-ready.mjs mongo <url> [timeoutSeconds] [pid]
// With a pid, gives up at once when that process has exited (no point waiting out the timeout).
// Exit 0 = ready, 1 = not ready before the deadline, 2 = usage / setup error.
//
// kafkajs and mongoose are the versions the services use, resolved from packages/platform so this
// script needs no dependencies of its own.
import { loadPlatformDep as load } from './platform-deps.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function kafkaOnce(Kafka, logLevel, brokers) {
  const kafka = new Kafka({
    clientId: 'marquee-wait-ready',
    brokers: brokers
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    connectionTimeout: 2000,
    requestTimeout: 5000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0 || cluster.controller == null || cluster.controller < 0) {
      throw new Error('no broker or controller in the metadata yet');
    }
    const topics = await admin.listTopics();
    // Also reach the group coordinator: on a fresh broker that creates __consumer_offsets, and
    // it answers "loading" for a moment after each start; consumers would otherwise meet that.
    await admin.describeGroups(['marquee-wait-ready']);
    return `cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s), ${topics.length} topic(s)`;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

async function mongoOnce(mongoose, url) {
  const conn = mongoose.createConnection(url, {
    serverSelectionTimeoutMS: 2000,
    connectTimeoutMS: 2000,
  });
  try {
    await conn.asPromise();
    const res = await conn.db.admin().command({ ping: 1 });
    if (res.ok !== 1) throw new Error(`ping answered ${JSON.stringify(res)}`);
    const info = await conn.db.admin().command({ buildInfo: 1 });
    return `ping ok, server ${info.version}${info.ferretdbVersion ? ` (FerretDB ${info.ferretdbVersion})` : ''}`;
  } finally {
    await conn.close().catch(() => {});
  }
}

async function main() {
  const [what, target, timeoutArg = '60', pidArg] = process.argv.slice(2);
  if (!['kafka', 'mongo'].includes(what) || !target) {
    console.error('usage: wait-ready.mjs kafka|mongo <brokers|url> [timeoutSeconds] [pid]');
    process.exit(2);
  }
  const timeoutMs = Number(timeoutArg) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    console.error(`wait-ready: timeout '${timeoutArg}' is not a positive number of seconds`);
    process.exit(2);
  }
  const pid = pidArg ? Number(pidArg) : undefined;

  let probe;
  if (what === 'kafka') {
    const { Kafka, logLevel } = await load('kafkajs');
    probe = () => kafkaOnce(Kafka, logLevel, target);
  } else {
    const mongoose = await load('mongoose');
    probe = () => mongoOnce(mongoose, target);
  }

  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt made';
  while (Date.now() < deadline) {
    if (!alive(pid)) {
      console.error(
        `wait-ready: ${what} process ${pid} exited before becoming ready (${lastError})`,
      );
      process.exit(1);
    }
    try {
      const summary = await probe();
      console.log(`${what} ready: ${summary}`);
      return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await sleep(500);
  }
  console.error(`wait-ready: ${what} at ${target} not ready after ${timeoutArg}s: ${lastError}`);
  process.exit(1);
}

await main();

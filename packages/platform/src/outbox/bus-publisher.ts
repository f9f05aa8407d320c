import type { EventBus, TopicDef } from '../bus/types.js';
import type { RawOutgoingEvent, RawPublisher } from './types.js';

// The outbox stores bytes encoded at write time; they must reach the broker exactly as stored.
const PASS_THROUGH = {
  encode: (bytes: Uint8Array): Uint8Array => bytes,
  decode: (bytes: Uint8Array): Uint8Array => bytes,
};

/**
 * A `RawPublisher` on top of the `EventBus` port, so the relay works with either bus adapter:
 * each catalog topic is republished with a pass-through codec, and the bus keeps the event's id and
 * time and takes its `traceparent` header as the producer span's parent (so the consumer joins the
 * trace of the request that wrote the event). `topics` is the catalog (`@marquee/proto` topics):
 * the bus creates missing topics with their compaction and retention, which a made-up definition
 * would get wrong. An event for a topic outside it fails the publish (the relay retries and logs).
 */
export function busRawPublisher(
  bus: Pick<EventBus, 'publish'> & Partial<Pick<EventBus, 'ready'>>,
  topics: Iterable<TopicDef<unknown>>,
): RawPublisher {
  const catalog = new Map<string, TopicDef<unknown>>();
  for (const topic of topics) catalog.set(topic.name, topic);
  const publish: RawPublisher = async (topicName, events) => {
    const topic = catalog.get(topicName);
    if (topic === undefined)
      throw new Error(
        `outbox: topic "${topicName}" is not in the catalog given to busRawPublisher`,
      );
    // The bus takes `ce_type` from the topic definition: one call per run of one type keeps the order.
    for (const run of runsOfOneType(events)) {
      const raw: TopicDef<Uint8Array> = { ...topic, type: run.type, codec: PASS_THROUGH };
      await bus.publish(
        raw,
        run.events.map((event) => ({
          key: event.key,
          value: event.value,
          id: event.id,
          time: event.time,
          headers: event.headers,
        })),
      );
    }
  };
  if (bus.ready !== undefined) publish.ready = () => bus.ready!();
  return publish;
}

function runsOfOneType(
  events: readonly RawOutgoingEvent[],
): { type: string; events: RawOutgoingEvent[] }[] {
  const runs: { type: string; events: RawOutgoingEvent[] }[] = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (last !== undefined && last.type === event.type) last.events.push(event);
    else runs.push({ type: event.type, events: [event] });
  }
  return runs;
}

import { createHash } from 'node:crypto';
import type { ServiceKeyring } from '../grpc/service-token.js';
import { CE_ID, CE_TIME, CE_TYPE } from './cloud-events.js';

export { isSignedTopic, SIGNED_TOPIC_PATTERN } from './signed-topics.js';

/**
 * Producer signatures on the records of command-like topics ({@link isSignedTopic}): defence in
 * depth behind the broker's ACLs. A principal that may write such a topic by mistake (a wrong
 * ACL, a leaked analytics credential) still cannot make a consumer issue tickets or cancel
 * orders: consumers dead-letter a record whose signature is missing or wrong.
 *
 * The header `marquee-signature` is `v1.<producer>.<mac>`: HMAC-SHA256 (base64url) under the
 * services' `SERVICE_AUTH_KEY` of the producer's name, the topic, the record key, the CloudEvents
 * id, type and time, and the SHA-256 of the value (or the word `tombstone`). The key ring is the
 * one the gRPC service tokens use: the first key signs, every key verifies, so one rotation
 * procedure covers both. Anyone holding the key can sign as any service; the key is held by the
 * platform's services only, never by a Kafka principal of analytics or a partner.
 */
export const SIGNATURE_HEADER = 'marquee-signature';

const VERSION = 'v1';
const PURPOSE = 'marquee-kafka-record/v1';
const PRODUCER = /^[a-z0-9][a-z0-9.-]{0,62}$/;

/** The parts of a record a signature covers. */
export interface SignedRecord {
  topic: string;
  key: string;
  value: Uint8Array | null;
  /** The CloudEvents headers (`ce_id`, `ce_type`, `ce_time`) as they travel. */
  headers: Readonly<Record<string, string>>;
}

export interface RecordSigning {
  /** The signing service's name, as the topic catalog lists its producers. */
  producer: string;
  /** The keys of `SERVICE_AUTH_KEY` (serviceKeyring()); the first signs. */
  keyring: ServiceKeyring;
}

function signedText(producer: string, record: SignedRecord): string {
  const digest =
    record.value === null
      ? 'tombstone'
      : createHash('sha256').update(record.value).digest('base64url');
  return [
    producer,
    record.topic,
    record.key,
    record.headers[CE_ID] ?? '',
    record.headers[CE_TYPE] ?? '',
    record.headers[CE_TIME] ?? '',
    digest,
  ].join('\n');
}

/** The `marquee-signature` header value for a record about to be sent. */
export function signRecord(signing: RecordSigning, record: SignedRecord): string {
  if (!PRODUCER.test(signing.producer))
    throw new Error(`not a service name: ${JSON.stringify(signing.producer)}`);
  const mac = signing.keyring.macFor(PURPOSE, signedText(signing.producer, record));
  return `${VERSION}.${signing.producer}.${mac.toString('base64url')}`;
}

/** Thrown into the dead-letter path for a record of a signed topic without a valid signature. */
export class RecordSignatureError extends Error {
  override readonly name = 'RecordSignatureError';
}

/**
 * Why a received record of a signed topic is refused, or undefined when its signature is valid
 * and names one of `producers` (the topic's catalog producers; empty allows any signer). The
 * reason names no key material.
 */
export function signatureProblem(
  keyring: ServiceKeyring,
  record: SignedRecord,
  producers: readonly string[],
): string | undefined {
  const header = record.headers[SIGNATURE_HEADER];
  if (header === undefined || header === '') return `unsigned record on ${record.topic}`;
  const [version, producer, mac, extra] = header.split('.');
  if (version !== VERSION || !producer || !PRODUCER.test(producer) || !mac || extra !== undefined)
    return `malformed ${SIGNATURE_HEADER} header`;
  if (producers.length > 0 && !producers.includes(producer))
    return `${producer} does not produce ${record.topic}`;
  const presented = Buffer.from(mac, 'base64url');
  if (!keyring.checksMacFor(PURPOSE, signedText(producer, record), presented))
    return `bad record signature (claims ${producer})`;
  return undefined;
}

/** The producers a bus `TopicDef` names (`producer` is comma-separated in the catalog). */
export function producersOf(topic: { producer: string }): string[] {
  return topic.producer
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

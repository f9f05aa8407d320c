/**
 * Producer signatures of the Kafka adapter (../record-signature.ts): the headers this bus sends
 * to a signed topic carry its signature, and a consumer of a signed topic checks the records it
 * reads. Without `signatures` the bus neither signs nor checks.
 */
import {
  isSignedTopic,
  producersOf,
  SIGNATURE_HEADER,
  signatureProblem,
  signRecord,
  type RecordSigning,
} from '../record-signature.js';
import type { ReceivedRecord } from '../delivery.js';
import type { TopicDef } from '../types.js';

/** A check of a received record: what is wrong with its signature, or `undefined`. */
export type RecordVerifier = (record: ReceivedRecord) => string | undefined;

/** The headers with the producer's signature, on signed topics when the bus signs. */
export function signedHeaders(
  signatures: RecordSigning | undefined,
  topic: string,
  key: string,
  value: Uint8Array | null,
  headers: Record<string, string>,
): Record<string, string> {
  // A signature handed in with the event's headers is never passed on as ours.
  const { [SIGNATURE_HEADER]: _given, ...rest } = headers;
  if (!signatures || !isSignedTopic(topic)) return rest;
  return {
    ...rest,
    [SIGNATURE_HEADER]: signRecord(signatures, { topic, key, value, headers: rest }),
  };
}

/** The signature check of a subscription's topic, when the bus checks and the topic is signed. */
export function verifierFor(
  signatures: RecordSigning | undefined,
  topic: TopicDef<unknown>,
): RecordVerifier | undefined {
  if (!signatures || !isSignedTopic(topic.name)) return undefined;
  const producers = producersOf(topic);
  return (record) => signatureProblem(signatures.keyring, record, producers);
}

import type { ReserveCartRequest } from '@marquee/proto/cart/v1';
import type { ReserveGate } from '../../app/ports.js';
import { ErrorCode } from '../../domain/errors.js';

/** Kinds of a reserve refused for load or left without an answer: the path is saturated. */
const OVERLOADED_KINDS = new Set(['unavailable', 'deadline_exceeded', 'resource_exhausted']);

/** Whether a failed reserve met load (refused for it, or left without an answer), not sold out. */
export function metLoad(error: unknown): boolean {
  const { kind, code } = (error ?? {}) as { kind?: unknown; code?: unknown };
  return code !== ErrorCode.NO_INVENTORY && OVERLOADED_KINDS.has(String(kind));
}

/**
 * A partner reserve behind the event's waiting room (`ReserveGate`): while the queue is on, the
 * request's admission is spent first (or the reserve refused, 20070); a reserve that then fails
 * gives it back, so the fan may try again until it expires. The room learns each reserve's
 * latency and outcome. Sandbox reserves hold no partner inventory and pass without one.
 */
export async function gatedReserve<T>(
  gate: ReserveGate,
  r: ReserveCartRequest,
  reserve: () => Promise<T>,
): Promise<T> {
  if (r.sandbox) return reserve();
  const pass = await gate.enter({
    eventId: r.eventId,
    appId: r.appId,
    ...(r.admissionToken ? { token: r.admissionToken } : {}),
    ...(r.queueFanId ? { fanId: r.queueFanId } : {}),
    ...(r.queueDeviceId ? { deviceId: r.queueDeviceId } : {}),
  });
  if (!pass) return reserve();
  const started = performance.now();
  try {
    const answer = await reserve();
    gate.observe(r.eventId, {
      latencyMs: performance.now() - started,
      overloaded: false,
      failed: false,
    });
    return answer;
  } catch (error) {
    gate.observe(r.eventId, {
      latencyMs: performance.now() - started,
      overloaded: metLoad(error),
      failed: true,
    });
    await pass.giveBack();
    throw error;
  }
}

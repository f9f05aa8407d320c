import { invalidInput } from '../../domain/errors.js';

/** Ids of fans and devices as apps send them: 1 to 128 printable characters, no spaces. */
const ID = /^[\w.:@-]{1,128}$/;

/**
 * The identity one place in a queue belongs to: `fan:<fan id>` when the app names a fan (a fan
 * signed in to the app), else `device:<device id>`. One identity of one app holds one place: a
 * second join of the same identity answers the first queue ticket.
 */
export function queueIdentityOf(input: { fanId?: string; deviceId?: string }): string {
  const fanId = input.fanId?.trim();
  const deviceId = input.deviceId?.trim();
  if (fanId) {
    if (!ID.test(fanId))
      throw invalidInput('fan_id must be 1-128 characters of [A-Za-z0-9_.:@-]', 'fan_id');
    return `fan:${fanId}`;
  }
  if (deviceId) {
    if (!ID.test(deviceId))
      throw invalidInput('device_id must be 1-128 characters of [A-Za-z0-9_.:@-]', 'device_id');
    return `device:${deviceId}`;
  }
  throw invalidInput('a fan_id or a device_id is required to join the queue', 'fan_id');
}

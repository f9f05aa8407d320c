import { call, UsageError, type Command } from '../command.js';

/** Event ids as the admin API's path takes them. */
const EVENT_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * `marquee onsale set <eventId> --opens-at <time> (--queue | --no-queue)`:
 * `PUT /admin/v1/events/{eventId}/onsale`; prints `{onSale}`. The time is RFC 3339 (an offset or
 * `Z` is required, so that no one's local clock decides an on-sale).
 */
export const onSaleSet: Command = {
  path: ['onsale', 'set'],
  summary:
    'Set an event\'s on-sale opening and turn its waiting room on (--queue) or off (--no-queue); prints {"onSale"}',
  usage: '<eventId> --opens-at 2030-06-01T10:00:00Z (--queue | --no-queue)',
  options: {
    'opens-at': { type: 'string' },
    queue: { type: 'boolean' },
    'no-queue': { type: 'boolean' },
  },
  async run({ options, positionals, api, out }) {
    const [eventId, ...rest] = positionals;
    if (!eventId) throw new UsageError('the event id is required');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    if (!EVENT_ID.test(eventId)) throw new UsageError('the event id is letters, digits and _.:-');
    const opensAt = typeof options['opens-at'] === 'string' ? options['opens-at'].trim() : '';
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(opensAt))
      throw new UsageError('--opens-at is required, as an RFC 3339 time with Z or an offset');
    const on = options.queue === true;
    const off = options['no-queue'] === true;
    if (on === off) throw new UsageError('say --queue or --no-queue');
    const iso = new Date(opensAt).toISOString();
    print(
      out,
      await call(
        api.PUT('/admin/v1/events/{eventId}/onsale', {
          params: { path: { eventId } },
          body: { opensAt: iso, queue: on },
        }),
      ),
    );
  },
};

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

export const onSaleCommands: readonly Command[] = [onSaleSet];

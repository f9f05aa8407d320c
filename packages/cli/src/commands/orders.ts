import { call, UsageError, type Command } from '../command.js';

const REASONS = ['REQUESTED', 'EVENT_CANCELLED', 'RECONCILIATION', 'PAYMENT_REVERSED'] as const;
const ACTIONS = ['PRINT', 'ROLLBACK_PRINT'] as const;

/** The value of `--name` when given, refused unless it is one of `allowed`. */
function oneOf(name: string, value: unknown, allowed: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value;
}

function onlyId(positionals: string[]): string {
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError('the order id is required');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

/** `marquee orders get <orderId>`: `GET /admin/v1/orders/{id}`; the order with its tickets. */
export const ordersGet: Command = {
  path: ['orders', 'get'],
  summary: 'One order with its tickets (never its order token)',
  usage: '<orderId>',
  options: {},
  async run({ positionals, api, out }) {
    const orderId = onlyId(positionals);
    print(
      out,
      await call(api.GET('/admin/v1/orders/{orderId}', { params: { path: { orderId } } })),
    );
  },
};

/** `--tickets a,b`: the ticket ids, comma separated, without blanks or repeats. */
function ticketList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = typeof value === 'string' ? value.split(',').map((id) => id.trim()) : [];
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw new UsageError('--tickets must list ticket ids, comma separated (a,b)');
  return [...new Set(ids)];
}

/**
 * `marquee orders cancel <orderId> [--tickets a,b] [--reason R] [--detail text]`:
 * `POST /admin/v1/orders/{id}/cancel`; prints `{order, partnerCancelQueued, tickets}`. With
 * `--tickets`, only those tickets are cancelled and refunded (a partial cancel).
 */
export const ordersCancel: Command = {
  path: ['orders', 'cancel'],
  summary:
    'Cancel a confirmed order, or only --tickets of it (prints {"order", "partnerCancelQueued", "tickets"}: queued is true when the partner cancel is queued for retry)',
  usage: `<orderId> [--tickets <id,id>] [--reason ${REASONS.join('|')}] [--detail <text>]`,
  options: { reason: { type: 'string' }, detail: { type: 'string' }, tickets: { type: 'string' } },
  async run({ options, positionals, api, out }) {
    const orderId = onlyId(positionals);
    const reason = oneOf('reason', options.reason, REASONS) as (typeof REASONS)[number] | undefined;
    const detail = options.detail;
    const ticketIds = ticketList(options.tickets);
    const body = {
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof detail === 'string' ? { detail } : {}),
      ...(ticketIds ? { ticketIds } : {}),
    };
    print(
      out,
      await call(
        api.POST('/admin/v1/orders/{orderId}/cancel', { params: { path: { orderId } }, body }),
      ),
    );
  },
};

/**
 * `marquee orders print <orderId> [--action PRINT|ROLLBACK_PRINT]`:
 * `POST /admin/v1/orders/{id}/print`; records printing of a confirmed order at the partner (PRINT,
 * the default) or rolls it back after a printing problem; prints the order with its tickets.
 */
export const ordersPrint: Command = {
  path: ['orders', 'print'],
  summary:
    'Record printing of a confirmed order at the partner, or roll it back with --action ROLLBACK_PRINT (prints the order)',
  usage: `<orderId> [--action ${ACTIONS.join('|')}]`,
  options: { action: { type: 'string' } },
  async run({ options, positionals, api, out }) {
    const orderId = onlyId(positionals);
    const action = oneOf('action', options.action, ACTIONS) as (typeof ACTIONS)[number] | undefined;
    const body = typeof action === 'string' ? { action } : {};
    print(
      out,
      await call(
        api.POST('/admin/v1/orders/{orderId}/print', { params: { path: { orderId } }, body }),
      ),
    );
  },
};

export const ordersCommands: readonly Command[] = [ordersGet, ordersCancel, ordersPrint];

import { currencyExponent, isKnownCurrency, parseDecimal } from '@marquee/platform/money';
import { call, UsageError, type Command, type CommandContext } from '../command.js';

type Options = CommandContext['options'];

function text(options: Options, name: string, required: boolean): string | undefined {
  const value = options[name];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
}

function list(options: Options, name: string): string[] {
  const value = options[name];
  const values = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function onlyId(positionals: string[], what: string): string {
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError(`the ${what} is required`);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

function count(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** `45.5` in `EUR` → 4550 (minor units, the admin API's amounts); refuses more decimals than the currency has. */
export function minorUnits(price: string, currency: string): number {
  if (!isKnownCurrency(currency))
    throw new UsageError(`--currency ${currency} is not an ISO 4217 currency`);
  const amount = parseDecimal(price, currency);
  if (amount === undefined)
    throw new UsageError(
      `--price must be an amount with at most ${currencyExponent(currency)} decimals, e.g. 45.50`,
    );
  if (amount <= 0) throw new UsageError('--price must be above zero');
  return amount;
}

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

/** `marquee resale create`: `POST /admin/v1/resale-listings`; prints the listing. */
export const resaleCreate: Command = {
  path: ['resale', 'create'],
  summary: 'List tickets of a confirmed order for resale, sold together (prints the listing)',
  usage:
    '--order <orderId> --ticket <ticketId>... --price <amount per ticket> --currency <ISO 4217> [--notes <text>]',
  options: {
    order: { type: 'string' },
    ticket: { type: 'string', multiple: true },
    price: { type: 'string' },
    currency: { type: 'string' },
    notes: { type: 'string' },
  },
  async run({ options, positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const ticketIds = list(options, 'ticket');
    if (ticketIds.length === 0)
      throw new UsageError('--ticket is required (repeat it or use commas)');
    const currency = text(options, 'currency', true)!.toUpperCase();
    const body = {
      orderId: text(options, 'order', true)!,
      ticketIds,
      price: { amount: minorUnits(text(options, 'price', true)!, currency), currency },
      ...(text(options, 'notes', false) ? { sellerNotes: text(options, 'notes', false) } : {}),
    };
    print(out, await call(api.POST('/admin/v1/resale-listings', { body })));
  },
};

/** `marquee resale list --event <id>`: `GET /admin/v1/resale-listings`, newest first. */
export const resaleList: Command = {
  path: ['resale', 'list'],
  summary: 'An event\'s resale listings, newest first (prints {"listings", "page"})',
  usage: '--event <eventId> [--active] [--offset <n>] [--limit <n>]',
  options: {
    event: { type: 'string' },
    active: { type: 'boolean' },
    offset: { type: 'string' },
    limit: { type: 'string' },
  },
  async run({ options, positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const offset = count(options.offset, 'offset', 0, 1_000_000_000);
    const limit = count(options.limit, 'limit', 1, 500);
    const query = {
      eventId: text(options, 'event', true)!,
      ...(options.active === true ? { activeOnly: true } : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(limit !== undefined ? { limit } : {}),
    };
    print(out, await call(api.GET('/admin/v1/resale-listings', { params: { query } })));
  },
};

/** `marquee resale show <listingId>`. */
export const resaleShow: Command = {
  path: ['resale', 'show'],
  summary: 'One resale listing',
  usage: '<listingId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { path: { id: onlyId(positionals, 'listing id') } };
    print(out, await call(api.GET('/admin/v1/resale-listings/{id}', { params: path })));
  },
};

/** `marquee resale withdraw <listingId>`: `DELETE /admin/v1/resale-listings/{id}`; prints it. */
export const resaleWithdraw: Command = {
  path: ['resale', 'withdraw'],
  summary: 'Take a resale listing off sale (refused while a cart holds it or once sold)',
  usage: '<listingId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { path: { id: onlyId(positionals, 'listing id') } };
    print(out, await call(api.DELETE('/admin/v1/resale-listings/{id}', { params: path })));
  },
};

export const resaleCommands: readonly Command[] = [
  resaleCreate,
  resaleList,
  resaleShow,
  resaleWithdraw,
];

import { UsageError, type Command } from '../command.js';

/** `marquee apps create`: SYSTEM.md §5 `POST /admin/v1/apps`. */
export const appsCreate: Command = {
  path: ['apps', 'create'],
  summary: 'Register a developer app; prints its API key and OAuth client credentials (JSON)',
  usage:
    '--name <name> --redirect-uri <uri> [--redirect-uri <uri>...] [--quota-per-day <n>] [--quota-per-second <n>]',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'quota-per-day': { type: 'string' },
    'quota-per-second': { type: 'string' },
  },
  async run({ options, admin, out }) {
    const name = options.name;
    const redirectUris = options['redirect-uri'];
    if (typeof name !== 'string' || name === '') throw new UsageError('--name is required');
    if (!Array.isArray(redirectUris) || redirectUris.length === 0)
      throw new UsageError('at least one --redirect-uri is required');
    const quota = {
      ...positive('quota-per-day', options['quota-per-day'], 'perDay'),
      ...positive('quota-per-second', options['quota-per-second'], 'perSecond'),
    };
    const created = await admin.post('apps', {
      name,
      redirectUris,
      ...(Object.keys(quota).length > 0 ? { quota } : {}),
    });
    out(JSON.stringify(created, null, 2));
  },
};

function positive(
  flag: string,
  raw: unknown,
  key: 'perDay' | 'perSecond',
): Partial<Record<'perDay' | 'perSecond', number>> {
  if (raw === undefined) return {};
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < 1)
    throw new UsageError(`--${flag} must be a whole number of at least 1`);
  return { [key]: value };
}

import { UsageError, type Command } from '../command.js';

/** `marquee apps create`: SYSTEM.md §5 `POST /admin/v1/apps`. */
export const appsCreate: Command = {
  path: ['apps', 'create'],
  summary: 'Register a developer app; prints its API key and OAuth client credentials (JSON)',
  usage: '--name <name> --redirect-uri <uri> [--redirect-uri <uri>...]',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
  },
  async run({ options, admin, out }) {
    const name = options.name;
    const redirectUris = options['redirect-uri'];
    if (typeof name !== 'string' || name === '') throw new UsageError('--name is required');
    if (!Array.isArray(redirectUris) || redirectUris.length === 0)
      throw new UsageError('at least one --redirect-uri is required');
    const created = await admin.post('apps', { name, redirectUris });
    out(JSON.stringify(created, null, 2));
  },
};

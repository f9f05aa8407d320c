import { call, UsageError, type Command } from '../command.js';

/** `marquee fans create`: the admin API's `POST /admin/v1/fans`. */
export const fansCreate: Command = {
  path: ['fans', 'create'],
  summary: 'Create a fan account that can sign in at /oauth/authorize; prints its id (JSON)',
  usage: '--email <email> (--password-stdin | --password <password>)',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    // A password on the command line is visible to other users in `ps` and kept in shell history.
    'password-stdin': { type: 'boolean' },
  },
  async run({ options, api, out, readStdin }) {
    const email = options.email;
    if (typeof email !== 'string' || email === '') throw new UsageError('--email is required');
    let password = options.password;
    if (options['password-stdin'] === true) password = (await readStdin()).replace(/\r?\n$/, '');
    if (typeof password !== 'string' || password === '')
      throw new UsageError('--password-stdin or --password is required');
    const created = await call(api.POST('/admin/v1/fans', { body: { email, password } }));
    out(JSON.stringify(created, null, 2));
  },
};

/**
 * `marquee fans delete <fanId>`: `DELETE /admin/v1/fans/{fanId}`. The fan's account, grants and
 * tokens are deleted, and the contact on the fan's orders is blanked (the orders are kept).
 */
export const fansDelete: Command = {
  path: ['fans', 'delete'],
  summary:
    "Delete a fan: account, grants and tokens; the e-mail, partner account id and fan id on the fan's orders are blanked",
  usage: '<fanId>',
  options: {},
  async run({ positionals, api, out }) {
    const [fanId, ...rest] = positionals;
    if (!fanId) throw new UsageError('the fan id is required');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    await call(api.DELETE('/admin/v1/fans/{fanId}', { params: { path: { fanId } } }));
    out(JSON.stringify({ fanId, deleted: true }, null, 2));
  },
};

/**
 * `marquee fans revoke-grant <fanId> <clientId>`: `DELETE /admin/v1/fans/{fanId}/grants/{clientId}`.
 * The fan's grant for the app ends and every token issued under it stops working.
 */
export const fansRevokeGrant: Command = {
  path: ['fans', 'revoke-grant'],
  summary:
    "Withdraw an app's access for a fan: its grant and every token issued under it are revoked",
  usage: '<fanId> <clientId>',
  options: {},
  async run({ positionals, api, out }) {
    const [fanId, clientId, ...rest] = positionals;
    if (!fanId || !clientId) throw new UsageError('the fan id and the client id are required');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    await call(
      api.DELETE('/admin/v1/fans/{fanId}/grants/{clientId}', {
        params: { path: { fanId, clientId } },
      }),
    );
    out(JSON.stringify({ fanId, clientId, revoked: true }, null, 2));
  },
};

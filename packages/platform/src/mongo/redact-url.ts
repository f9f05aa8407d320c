/**
 * A MongoDB connection string fit for logs: the password and secret-looking query parameters are
 * replaced. Parsed by hand because `new URL` rejects the multi-host form (`mongodb://a:1,b:2/db`).
 */
const USERINFO = /^(mongodb(?:\+srv)?:\/\/)([^@/?#]*)@/i;
const SECRET_PARAM =
  /([?&](?:[^=&]*(?:password|secret|token)[^=&]*|authMechanismProperties)=)[^&#]*/gi;

export const REDACTED = '***';

export function redactMongoUrl(url: string): string {
  return url
    .replace(USERINFO, (_match, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon === -1
        ? `${scheme}${userinfo}@`
        : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
    })
    .replace(SECRET_PARAM, `$1${REDACTED}`);
}

/** The password in a connection string, so it can be scrubbed from driver error messages. */
export function mongoUrlPassword(url: string): string | undefined {
  const userinfo = USERINFO.exec(url)?.[2];
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo === undefined || colon === -1) return undefined;
  const raw = userinfo.slice(colon + 1);
  return raw.length === 0 ? undefined : raw;
}

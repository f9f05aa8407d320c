import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { addressRefusal, type EgressPolicy } from '../domain/egress.js';

/** Resolves a host name to every address it has (`dns.lookup` with `all: true` by default). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, order: 'verbatim' }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** A partner address the egress policy refuses (never sent: nothing left the process). */
export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_REFUSED';
  constructor(readonly reason: string) {
    super(`partner address refused: ${reason}`);
    this.name = 'EgressRefusedError';
  }
}

/**
 * The `lookup` of every partner socket: resolves the host once, refuses the connection when any
 * address it resolves to is not allowed (a name that also resolves to 10.0.0.1 is refused even if
 * it has a public address), and hands exactly the checked addresses to the socket, which connects
 * to one of them. The check and the connection use one answer, so a name cannot resolve to a public
 * address for the check and to an internal one for the connection (DNS rebinding).
 */
export function guardedLookup(
  policy: EgressPolicy,
  resolver: Resolver = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
    resolver(host).then(
      (resolved) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? resolved.filter((a) => a.family === options.family)
            : resolved;
        if (wanted.length === 0) {
          const error = Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
          return callback(error, '', 0);
        }
        for (const { address } of resolved) {
          const refusal = addressRefusal(policy, host, address);
          if (refusal) return callback(new EgressRefusedError(refusal), '', 0);
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * The undici dispatcher of partner calls: keep-alive pooling as undici's default agent, every new
 * connection through `guardedLookup`. undici follows no redirect unless told to (the client answers
 * a 3xx as a fault).
 */
export function egressAgent(policy: EgressPolicy, resolver?: Resolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(policy, resolver) } });
}

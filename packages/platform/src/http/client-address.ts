import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * The proxies whose `X-Forwarded-For` entries are believed: addresses and CIDR blocks
 * (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`). Built on Node's `net.BlockList`, which matches IPv4 and
 * IPv6 subnets exactly.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly cidrs: readonly string[];

  /** Throws, naming the entry, for anything that is no address or CIDR block. */
  constructor(cidrs: readonly string[]) {
    this.cidrs = cidrs;
    for (const entry of cidrs) {
      const [address = '', prefix] = entry.split('/');
      const family = isIP(address);
      const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
      const max = family === 6 ? 128 : 32;
      if (family === 0 || !/^\d{0,3}$/.test(prefix ?? '') || !(bits >= 0 && bits <= max)) {
        throw new Error(`not an IP address or CIDR block: ${JSON.stringify(entry)}`);
      }
      this.list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
    }
  }

  has(address: string): boolean {
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `::ffff:10.1.2.3` (how a dual-stack socket reports an IPv4 peer) → `10.1.2.3`. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return match ? match[1]! : address;
}

/** At most this many hops are read from the right of `X-Forwarded-For`. */
const MAX_HOPS = 16;

/**
 * The client's address: start from the socket peer and, while the address at hand is a trusted
 * proxy, step to the entry that proxy appended to `X-Forwarded-For` (the right-most one not yet
 * used). The first address that is no trusted proxy is the client. Entries left of it were
 * written by the client and are never read, so a client cannot choose the address it is counted
 * under; an untrusted peer's header is ignored altogether.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let address = unmapped(peer ?? '');
  if (!trusted.has(address) || forwardedFor === undefined) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .slice(-MAX_HOPS);
  while (trusted.has(address) && hops.length > 0) {
    const next = unmapped(hops.pop()!.trim());
    // A trusted proxy writes addresses; anything else means the chain cannot be read further.
    if (isIP(next) === 0) break;
    address = next;
  }
  return address;
}

/**
 * The `TRUSTED_PROXIES` setting: `a, b` → `['a', 'b']`, each an address or CIDR block; `none` →
 * `[]`. A bad entry is a configuration error naming it.
 */
export const trustedProxiesSetting = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((raw) =>
      raw.trim() === 'none'
        ? []
        : raw
            .split(',')
            .map((entry) => entry.trim())
            .filter((entry) => entry.length > 0),
    )
    .superRefine((cidrs, context) => {
      try {
        new TrustedProxies(cidrs);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    });

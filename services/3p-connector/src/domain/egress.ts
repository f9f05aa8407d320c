import ipaddr from 'ipaddr.js';
import { ConnectorError } from './errors.js';

/**
 * Where the connector may send partner calls. A partner URL is set by an operator, but the
 * connector POSTs a client secret to it and reads what comes back, so a URL naming an address
 * inside the platform (loopback, link-local with the cloud metadata endpoint, RFC 1918, ULA,
 * CGNAT, cluster names) would turn the connector against its own network. Those are refused
 * unless the operator lists the host in `PARTNER_ALLOWED_HOSTS`.
 */
export interface EgressPolicy {
  /** `https:` only (NODE_ENV=production). */
  requireHttps: boolean;
  /** Host names (lower case, as in a URL) allowed whatever they resolve to. */
  allowedNames: ReadonlySet<string>;
  /** Addresses and ranges allowed although not public (IP literals and CIDRs of the list). */
  allowedRanges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

/**
 * Reads `PARTNER_ALLOWED_HOSTS`: comma- or blank-separated host names, IP addresses and CIDR
 * ranges (`127.0.0.1`, `::1`, `[::1]`, `partner-reference`, `10.20.0.0/16`).
 */
export function egressPolicy(options: {
  requireHttps: boolean;
  allowedHosts?: string | readonly string[];
}): EgressPolicy {
  const entries =
    typeof options.allowedHosts === 'string'
      ? options.allowedHosts.split(/[\s,]+/)
      : [...(options.allowedHosts ?? [])];
  const allowedNames = new Set<string>();
  const allowedRanges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (entry === '') continue;
    if (entry.includes('/')) {
      allowedRanges.push(ipaddr.parseCIDR(entry));
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      allowedRanges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      allowedNames.add(entry);
    }
  }
  return { requireHttps: options.requireHttps, allowedNames, allowedRanges };
}

/** Whether a URL host (brackets removed) is an IP address rather than a name. */
export const isIpLiteral = (host: string): boolean => ipaddr.isValid(host);

/** Names that only mean something inside a host or a cluster (DNS search domains included). */
const INTERNAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.internal',
  '.svc',
  '.cluster.local',
  '.lan',
  '.home.arpa',
];

/** A URL's host as the rules see it: lower case, no IPv6 brackets, no trailing root dot. */
const hostOf = (url: URL): string =>
  url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/**
 * Why `address` (as resolved or written) is not a public unicast address, or undefined when it is.
 * ipaddr.js names the range; IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 it holds,
 * and every range but `unicast` is refused (loopback, linkLocal, private, uniqueLocal,
 * carrierGradeNat, unspecified, multicast, reserved, 6to4, teredo, NAT64 prefixes…), since each of
 * them either stays inside a network or can wrap an internal IPv4 address.
 */
export function nonPublicRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

function allowedAddress(policy: EgressPolicy, address: string): boolean {
  const parsed = ipaddr.process(address);
  return policy.allowedRanges.some(
    ([base, bits]) => base.kind() === parsed.kind() && parsed.match([base, bits] as never),
  );
}

/**
 * Refusal reason for connecting to `address` on behalf of URL host `host`, or undefined when
 * allowed: a public address, a host name listed, or an address in a listed range.
 */
export function addressRefusal(
  policy: EgressPolicy,
  host: string,
  address: string,
): string | undefined {
  if (policy.allowedNames.has(host.toLowerCase())) return undefined;
  const range = nonPublicRange(address);
  if (range === undefined || allowedAddress(policy, address)) return undefined;
  return `${host === address ? 'it is' : `${host} resolves to`} a ${range} address`;
}

/**
 * `value` as an absolute http or https URL; anything else throws `invalid_argument` naming
 * `field`.
 */
export function absoluteHttpUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConnectorError('invalid_argument', `${field} must be an absolute URL`, { field });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConnectorError('invalid_argument', `${field} must be an http or https URL`, {
      field,
    });
  }
  return url;
}

/**
 * What can be judged of a partner URL without resolving it: the scheme (https in production), no
 * credentials, and a host that is not an internal address or name unless listed. Throws
 * `invalid_argument` with the field in its details; answers the URL's host.
 */
export function checkPartnerUrl(policy: EgressPolicy, field: string, value: string): string {
  const url = absoluteHttpUrl(field, value);
  const host = hostOf(url);
  // Production wants TLS to every partner; a host the operator listed is trusted explicitly (an
  // in-cluster or loopback partner such as partner-reference in the test stacks).
  if (url.protocol === 'http:' && policy.requireHttps && !listed(policy, host)) {
    throw new ConnectorError(
      'invalid_argument',
      `${field} must be an https URL (plain http only to hosts listed in PARTNER_ALLOWED_HOSTS)`,
      { field },
    );
  }
  const refusal = hostRefusal(policy, host);
  if (refusal) {
    throw new ConnectorError(
      'invalid_argument',
      `${field} must name a public host: ${refusal} (operators allow such hosts with PARTNER_ALLOWED_HOSTS)`,
      { field },
    );
  }
  return host;
}

/** A host the operator listed: by name, or an IP literal inside a listed address or range. */
function listed(policy: EgressPolicy, host: string): boolean {
  if (policy.allowedNames.has(host)) return true;
  return ipaddr.isValid(host) && allowedAddress(policy, host);
}

function hostRefusal(policy: EgressPolicy, host: string): string | undefined {
  if (policy.allowedNames.has(host)) return undefined;
  if (ipaddr.isValid(host)) return addressRefusal(policy, host, host);
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return `${host} is an internal name`;
  // A name without a dot is completed by the resolver's search domains (a cluster service name).
  if (!host.includes('.')) return `${host} is a single-label (cluster) name`;
  return undefined;
}

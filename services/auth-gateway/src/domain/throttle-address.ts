/**
 * The address a throttle counts a client under. IPv4 addresses as they are (an IPv4-mapped IPv6
 * address as its IPv4 form); IPv6 addresses by their /64 prefix, the block one subscriber is
 * given: counting single IPv6 addresses would give anyone 2^64 fresh budgets.
 */
export function throttleAddress(ip: string): string {
  const address = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::', 2);
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+/, '') || '0')
    .join(':')}::/64`;
}

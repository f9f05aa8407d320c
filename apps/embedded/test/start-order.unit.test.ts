import { describe, expect, it } from 'vitest';
import { hostedServices, startOrder, type Bootable } from '../src/services.js';

const service = (name: string, calls: string[] = []): Bootable => ({
  name,
  calls,
  callsLater: [],
  callers: {},
  uses: undefined,
  development: {},
  v8: { nodeOptions: [], runtimeFlags: [] },
  boot: async () => {
    throw new Error('not started here');
  },
});

describe('startOrder', () => {
  it('starts every service after the services it calls, otherwise as listed', () => {
    const order = startOrder([
      service('edge', ['cart', 'deals']),
      service('cart', ['connector']),
      service('deals'),
      service('connector'),
    ]).map(({ name }) => name);
    expect(order).toEqual(['connector', 'cart', 'deals', 'edge']);
  });

  it('refuses a call to a service it does not host, and a cycle', () => {
    expect(() => startOrder([service('cart', ['connector'])])).toThrow(
      'cart calls connector, which is not hosted',
    );
    expect(() => startOrder([service('a', ['b']), service('b', ['a'])])).toThrow('calls it back');
  });

  it('orders the hosted services: each one after every service it calls', () => {
    const order = startOrder(hostedServices).map(({ name }) => name);
    expect(order).toHaveLength(hostedServices.length);
    for (const hosted of hostedServices)
      for (const callee of hosted.calls)
        expect(order.indexOf(callee), `${hosted.name} → ${callee}`).toBeLessThan(
          order.indexOf(hosted.name),
        );
    expect(order.at(-1)).toBe('edge-gateway');
  });
});

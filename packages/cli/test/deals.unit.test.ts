import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

interface Call {
  method: string;
  url: string;
  body: unknown;
}

/** A fake edge admin API holding one deal. */
function harness() {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  let deal = {
    id: 'D1',
    eventId: 'E1',
    dealName: 'Two for one',
    dealDescription: 'BOGO',
    dealOfferCode: 'TWO',
    exclusivity: 'EXCLUSIVE',
    state: 'ACTIVE',
    version: 3,
  };
  const fakeFetch = viaRequest(async (url, init) => {
    const call = {
      method: init.method ?? 'GET',
      url: String(url),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    calls.push(call);
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
    if (!String(url).includes('/deals/D1') && call.method !== 'POST')
      return json(404, { error: { code: 'not_found', message: 'deal is not known' } });
    switch (call.method) {
      case 'POST':
        return json(201, { id: 'D1' });
      case 'GET':
        return json(200, deal);
      case 'PUT':
        deal = { ...deal, ...(call.body as object), version: deal.version + 1 };
        if (!('dealOfferCode' in (call.body as object)))
          delete (deal as { dealOfferCode?: string }).dealOfferCode;
        return json(200, deal);
      default:
        deal = { ...deal, state: 'ENDED', version: deal.version + 1 };
        return new Response(null, { status: 204 });
    }
  });
  const run = (argv: string[]) =>
    runCli(argv, {
      env: { MARQUEE_URL: 'https://edge.test:8080', ADMIN_TOKEN: 'admin-token-123456' },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: async () => '',
      fetch: fakeFetch,
    });
  return { run, calls, out, err };
}

describe('marquee deals', () => {
  it('create posts the admin body and prints the id', async () => {
    const sut = harness();
    const code = await sut.run([
      'deals',
      'create',
      '--event',
      'E1',
      '--name',
      'Two for one',
      '--description',
      'BOGO',
      '--exclusivity',
      'exclusive',
      '--offer-code',
      'TWO',
    ]);
    expect(code).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'POST',
        url: 'https://edge.test:8080/admin/v1/deals',
        body: {
          eventId: 'E1',
          dealName: 'Two for one',
          dealDescription: 'BOGO',
          dealOfferCode: 'TWO',
          exclusivity: 'EXCLUSIVE',
        },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ id: 'D1' });
  });

  it('create without a required field or with a bad exclusivity is a usage error (exit 2), no call', async () => {
    const sut = harness();
    expect(
      await sut.run([
        'deals',
        'create',
        '--event',
        'E1',
        '--name',
        'n',
        '--exclusivity',
        'EXCLUSIVE',
      ]),
    ).toBe(2);
    expect(
      await sut.run([
        'deals',
        'create',
        '--event',
        'E1',
        '--name',
        'n',
        '--description',
        'd',
        '--exclusivity',
        'SOMETIMES',
      ]),
    ).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(sut.err.join('\n')).toMatch(/--description is required/);
  });

  it('update reads the deal and PUTs the merged state at the version it read', async () => {
    const sut = harness();
    expect(
      await sut.run(['deals', 'update', 'D1', '--name', 'Half price', '--no-offer-code']),
    ).toBe(0);
    expect(sut.calls.map((c) => c.method)).toEqual(['GET', 'PUT']);
    expect(sut.calls[1]).toEqual({
      method: 'PUT',
      url: 'https://edge.test:8080/admin/v1/deals/D1',
      body: {
        dealName: 'Half price',
        dealDescription: 'BOGO',
        exclusivity: 'EXCLUSIVE',
        expectedVersion: 3,
      },
    });
    expect(JSON.parse(sut.out.join('\n'))).toMatchObject({ dealName: 'Half price', version: 4 });
  });

  it('update with nothing to change is a usage error', async () => {
    const sut = harness();
    expect(await sut.run(['deals', 'update', 'D1'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });

  it('end deletes the deal and prints it ended; an unknown deal exits 1 with the API error', async () => {
    const sut = harness();
    expect(await sut.run(['deals', 'end', 'D1'])).toBe(0);
    expect(sut.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'DELETE https://edge.test:8080/admin/v1/deals/D1',
      'GET https://edge.test:8080/admin/v1/deals/D1',
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toMatchObject({ id: 'D1', state: 'ENDED' });
    expect(await sut.run(['deals', 'end', 'nope'])).toBe(1);
    expect(sut.err.join('\n')).toMatch(/404/);
  });
});

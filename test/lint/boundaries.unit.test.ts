import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// docs/decisions.md, Layers: domain/ and app/ import nothing from mongoose, kafkajs, grpc-js,
// fastify or the platform package. The rule lives in eslint.config.js; this proves it bites where
// it should and only there.
const repo = fileURLToPath(new URL('../..', import.meta.url));
const sut = new ESLint({ cwd: repo });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await sut.lintText(code, { filePath: `${repo}${filePath}` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

const infrastructure = [
  "import mongoose from 'mongoose';",
  "import { Kafka } from 'kafkajs';",
  "import * as grpc from '@grpc/grpc-js';",
  "import Fastify from 'fastify';",
  "import swagger from '@fastify/swagger';",
  "import { createMemoryBus } from '@marquee/platform/bus';",
];

describe('architecture boundaries', () => {
  it.each(['services/deals/src/domain/deal.ts', 'services/deals/src/app/search-deals.ts'])(
    'rejects every infrastructure import in %s',
    async (file) => {
      for (const line of infrastructure) {
        const messages = await restrictedImports(file, `${line}\n`);
        expect(messages, line).toHaveLength(1);
        expect(messages[0]).toContain('domain/ and app/ stay free of infrastructure');
      }
    },
  );

  it('allows the same imports in adapters/ and ports/, and pure imports in domain/', async () => {
    for (const line of infrastructure) {
      expect(
        await restrictedImports(
          'services/deals/src/adapters/mongo/deal-repository.ts',
          `${line}\n`,
        ),
      ).toEqual([]);
    }
    for (const line of [
      "import { randomUUID } from 'node:crypto';",
      // Pure workspace packages (no infrastructure, no state) are domain code's to share.
      "import { haversineKm } from '@marquee/geo';",
      // The platform's money module is pure too: one rule for currencies in every layer.
      "import { toDecimal } from '@marquee/platform/money';",
      // And its kernel: error kinds, the clock port, the compare-and-set retry.
      "import { retryingConflicts } from '@marquee/platform/kernel';",
    ]) {
      expect(await restrictedImports('services/deals/src/domain/deal.ts', `${line}\n`)).toEqual([]);
    }
  });
});

describe('package direction', () => {
  const manifest = (dir: string) =>
    JSON.parse(readFileSync(`${repo}/${dir}/package.json`, 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
  const folders = (dir: string) =>
    readdirSync(`${repo}/${dir}`, { withFileTypes: true })
      .filter(
        (entry) => entry.isDirectory() && existsSync(`${repo}/${dir}/${entry.name}/package.json`),
      )
      .map((entry) => `${dir}/${entry.name}`);
  const services = new Set(folders('services').map((dir) => manifest(dir).name));

  it('finds the services to check against', () => {
    expect(services).toContain('@marquee/cart');
    expect(services.size).toBeGreaterThanOrEqual(10);
  });

  it.each(folders('packages'))('%s depends on no service', (dir) => {
    const { dependencies = {}, devDependencies = {} } = manifest(dir);
    const used = Object.keys({ ...dependencies, ...devDependencies });
    expect(used.filter((name) => services.has(name))).toEqual([]);
  });

  // A service's tests test that service alone (scripts/eslint/service-tests.js): what needs
  // another service is the cross-service tier's (test/integration). One stand-in is allowed:
  // partner-reference as the partner system at the far end of 3p-connector's HTTP client.
  const standIns: Record<string, string[]> = {
    '@marquee/3p-connector': ['@marquee/partner-reference'],
  };

  it.each(folders('services'))('%s depends on no other service', (dir) => {
    const { name, dependencies = {}, devDependencies = {} } = manifest(dir);
    const used = Object.keys({ ...dependencies, ...devDependencies });
    expect(
      used.filter(
        (other) => other !== name && services.has(other) && !standIns[name]?.includes(other),
      ),
    ).toEqual([]);
  });

  it('keeps slices of a service under the same layer rule', async () => {
    const messages = await restrictedImports(
      'services/cart/src/top-picks/domain/listing.ts',
      "import { createMemoryBus } from '@marquee/platform/bus';\n",
    );
    expect(messages).toHaveLength(1);
  });
});

describe("a service's tests import no other service (scripts/eslint/service-tests.js)", () => {
  const otherService = [
    "import { threePConnectorService } from '@marquee/3p-connector';\n",
    "import { composeSecureEntry } from '@marquee/secure-entry';\n",
    "import { authGatewayService } from '@marquee/auth-gateway/sub';\n",
    "export { partnerReferenceService } from '@marquee/partner-reference';\n",
    "import { threePConnectorService } from '../../3p-connector/src/index.js';\n",
    "import { x } from '../../../services/secure-entry/src/service.js';\n",
  ];

  it.each(['services/cart/test/x.int.test.ts', 'services/cart/test/top-picks/x.unit.test.ts'])(
    'refuses every other service in %s, naming the cross-service tier',
    async (file) => {
      for (const line of otherService) {
        const messages = await restrictedImports(file, line);
        expect(messages, line).toHaveLength(1);
        expect(messages[0]).toContain('belongs in test/integration');
      }
    },
  );

  it("allows a service's tests its own package and sources, and the platform", async () => {
    for (const line of [
      "import { cartService } from '@marquee/cart';\n",
      "import { composeCart } from '../src/service.js';\n",
      "import { testLogger } from '@marquee/platform/testing';\n",
      "import { cartV1 } from '@marquee/proto';\n",
    ])
      expect(await restrictedImports('services/cart/test/x.int.test.ts', line), line).toEqual([]);
  });

  it("allows 3p-connector's tests partner-reference, the partner's system, and nothing else", async () => {
    const file = 'services/3p-connector/test/connector-partner.int.test.ts';
    expect(
      await restrictedImports(
        file,
        "import { partnerReferenceService } from '@marquee/partner-reference';\n",
      ),
    ).toEqual([]);
    expect(
      await restrictedImports(file, "import { cartService } from '@marquee/cart';\n"),
    ).toHaveLength(1);
  });

  it('allows the cross-service tier and the embedded default every service', async () => {
    for (const file of ['test/integration/x.int.test.ts', 'apps/embedded/src/services.ts'])
      for (const line of otherService.slice(0, 4))
        expect(await restrictedImports(file, line), `${file}: ${line}`).toEqual([]);
  });
});

describe('layer direction inside a service (scripts/eslint/layers.js)', () => {
  async function layerMessages(filePath: string, code: string): Promise<string[]> {
    const [result] = await sut.lintText(code, { filePath: `${repo}${filePath}` });
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === 'layers/layer-direction')
      .map((m) => m.message);
  }

  it.each([
    ['services/deals/src/domain/deal.ts', "import type { X } from '../app/ports.js';\n", 'domain/'],
    ['services/deals/src/app/x.ts', "import { y } from '../adapters/repositories.js';\n", 'app/'],
    [
      'services/deals/src/adapters/x.ts',
      "import { y } from '../ports/grpc/deals-grpc.js';\n",
      'adapters/',
    ],
    ['services/deals/src/app/x.ts', "import { y } from '../config.js';\n", 'config.ts'],
    [
      'services/cart/src/app/x.ts',
      "import { y } from '../top-picks/app/ports.js';\n",
      'core never',
    ],
    ['services/cart/src/ports/x.ts', "import { y } from '../top-picks/index.js';\n", 'core never'],
    [
      'services/cart/src/top-picks/app/x.ts',
      "import { y } from '../../commerce/app/a.js';\n",
      'another slice',
    ],
  ])('refuses %s importing %s', async (file, code, why) => {
    const messages = await layerMessages(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(why);
  });

  it.each([
    ['services/deals/src/app/x.ts', "import type { Deal } from '../domain/deal.js';\n"],
    ['services/deals/src/ports/grpc/x.ts', "import { y } from '../../adapters/repositories.js';\n"],
    ['services/deals/src/adapters/x.ts', "import { y } from '../config.js';\n"],
    ['services/deals/src/service.ts', "import { y } from './ports/grpc/deals-grpc.js';\n"],
    ['services/cart/src/top-picks/app/x.ts', "import type { Cart } from '../../domain/cart.js';\n"],
    [
      'services/cart/src/top-picks/index.ts',
      "import { y } from './ports/grpc/top-picks-grpc.js';\n",
    ],
  ])('allows %s importing %s', async (file, code) => {
    expect(await layerMessages(file, code)).toEqual([]);
  });

  it('refuses a source file outside the layer folders', async () => {
    const messages = await layerMessages(
      'services/deals/src/helpers/x.ts',
      'export const x = 1;\n',
    );
    expect(messages[0]).toContain('sits in domain/, app/, adapters/ or ports/');
  });
});

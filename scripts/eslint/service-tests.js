// @ts-check
// A service's own tests test that service alone: real Kafka, the real Mongo-wire server and
// stripe-mock are fine, other services are not. A case that needs several services belongs in the
// cross-service tier, test/integration/ (apps/embedded and test/ may import any service). As
// ESLint blocks: one `no-restricted-imports` block per service, for `services/<dir>/test/**`,
// refusing every other service's package (`@marquee/<other>`, its subpaths) and relative paths
// that climb into another service's folder. The same rule holds for package.json: a service names
// no other service in its dependencies (test/lint/boundaries.unit.test.ts checks both).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const servicesDir = fileURLToPath(new URL('../../services/', import.meta.url));

/**
 * The one exception, by service folder: the packages its tests may import although they are
 * services. 3p-connector's tests run partner-reference as the partner's system at the far end of
 * its HTTP client, as cart's tests run stripe-mock as Stripe. partner-reference is no peer of the
 * connector on the platform's gRPC or Kafka: it is the reference implementation of the 3P API
 * (the contract every partner implements, which the conformance tier checks it against), reached
 * only over that API, so the connector's own integration suite needs it to test the connector
 * against a real partner server rather than a fake of one.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const TEST_STAND_INS = { '3p-connector': ['@marquee/partner-reference'] };

/** Every service: its folder under services/ and its package name. */
export function services() {
  return readdirSync(servicesDir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(`${servicesDir}${entry.name}/package.json`),
    )
    .map((entry) => ({
      dir: entry.name,
      name: /** @type {string} */ (
        JSON.parse(readFileSync(`${servicesDir}${entry.name}/package.json`, 'utf8')).name
      ),
    }));
}

/** The services whose packages the tests of the service in `dir` may not use. */
export function othersOf(dir) {
  const allowed = TEST_STAND_INS[dir] ?? [];
  return services().filter((other) => other.dir !== dir && !allowed.includes(other.name));
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ESLint config blocks, one per service. */
export function serviceTestBlocks() {
  return services().map(({ dir }) => {
    const others = othersOf(dir);
    const message = `services/${dir}/test tests ${dir} alone: a case that needs another service belongs in test/integration (the cross-service tier).`;
    return {
      files: [`services/${dir}/test/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { group: others.flatMap(({ name }) => [name, `${name}/*`]), message },
              {
                regex: `^(\\.\\./)+(services/)?(${others.map(({ dir: d }) => escape(d)).join('|')})/`,
                message,
              },
            ],
          },
        ],
      },
    };
  });
}

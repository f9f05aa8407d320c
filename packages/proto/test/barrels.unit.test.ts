import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';

// The area barrels (src/<area>-v1.ts) and the package exports are hand-written; these checks make a new
// proto file or package that was generated but not exported fail the build instead of going unnoticed.

const src = new URL('../src/', import.meta.url);
const areas = readdirSync(new URL('gen/marquee/', src)).sort();
const packageJson = JSON.parse(readFileSync(new URL('../package.json', src), 'utf8')) as {
  exports: Record<string, unknown>;
};

describe('barrels', () => {
  it.each(areas)(
    'marquee.%s.v1 re-exports every generated file and is a package subpath',
    (area) => {
      const generated = readdirSync(new URL(`gen/marquee/${area}/v1/`, src)).filter((f) =>
        f.endsWith('.ts'),
      );
      const barrel = readFileSync(new URL(`${area}-v1.ts`, src), 'utf8');

      for (const file of generated) {
        expect(barrel).toContain(
          `export * from './gen/marquee/${area}/v1/${file.replace(/\.ts$/, '.js')}';`,
        );
      }
      expect(packageJson.exports[`./${area}/v1`]).toEqual({
        '@marquee/source': `./src/${area}-v1.ts`,
        default: `./dist/${area}-v1.js`,
      });
      const namespace = `${area}V1` as keyof typeof root;
      expect(root[namespace], `index.ts exports ${namespace}`).toBeTypeOf('object');
    },
  );
});

// The tier selection and skip rule of `pnpm test` (scripts/test-tiers.mjs), checked without running
// a tier. Run by `pnpm test` in its static tier; alone: `pnpm exec vitest run scripts/test-tiers.test.ts`.
import { describe, expect, it } from 'vitest';
import {
  NEEDS,
  TIERS,
  runPassed,
  selectTiers,
  stepVerdict,
  unmetNeeds,
  withoutTiers,
} from './test-tiers.mjs';

const all = Object.keys(TIERS);

describe('selectTiers', () => {
  it('runs every tier, in order, when none is named', () => {
    expect(selectTiers([], {})).toEqual({
      tiers: all,
      narrowed: false,
      list: false,
      dryRun: false,
    });
    expect(all.slice(0, 5)).toEqual([
      'static',
      'unit',
      'integration',
      'cross-service',
      'conformance',
    ]);
  });

  it("names the cross-service tier, after the packages' own integration tests, with the same servers", () => {
    expect(selectTiers(['--tiers', 'cross-service'], {}).tiers).toEqual(['cross-service']);
    expect(selectTiers(['--tiers', 'cross-service,integration'], {}).tiers).toEqual([
      'integration',
      'cross-service',
    ]);
    // A leading '-' leaves it out; the name's own '-' is no such prefix.
    expect(selectTiers(['--tiers', '-cross-service'], {}).tiers).toEqual(
      all.filter((tier) => tier !== 'cross-service'),
    );
    expect(NEEDS['cross-service']).toEqual(['infra']);
  });

  it('takes --tiers LIST, --tiers=LIST (after a pnpm `--` or not) and MARQUEE_TEST_TIERS', () => {
    const unitIntegration = {
      tiers: ['unit', 'integration'],
      narrowed: true,
      list: false,
      dryRun: false,
    };
    expect(selectTiers(['--tiers', 'integration,unit'], {})).toEqual(unitIntegration);
    expect(selectTiers(['--', '--tiers=unit, integration'], {})).toEqual(unitIntegration);
    expect(selectTiers([], { MARQUEE_TEST_TIERS: 'unit,integration' })).toEqual(unitIntegration);
    // The flag wins over the variable.
    expect(selectTiers(['--tiers', 'e2e'], { MARQUEE_TEST_TIERS: 'unit' }).tiers).toEqual(['e2e']);
  });

  it('leaves out tiers named with a leading -, from all or from the named ones', () => {
    expect(selectTiers(['--tiers', '-browser,-image'], {}).tiers).toEqual(
      all.filter((tier) => tier !== 'browser' && tier !== 'image'),
    );
    expect(selectTiers(['--tiers', 'static,unit,-unit'], {}).tiers).toEqual(['static']);
    expect(selectTiers(['--tiers', 'all', '--dry-run'], {})).toEqual({
      tiers: all,
      narrowed: true,
      list: false,
      dryRun: true,
    });
  });

  it('refuses unknown tiers and arguments, and a list that leaves nothing', () => {
    expect(() => selectTiers(['--tiers', 'unit,intgration'], {})).toThrow(
      /unknown tier\(s\): intgration/,
    );
    expect(() => selectTiers(['--tier', 'unit'], {})).toThrow(/unknown argument '--tier'/);
    expect(() => selectTiers(['--tiers'], {})).toThrow(/--tiers needs a list/);
    expect(() => selectTiers(['--tiers', 'unit,-unit'], {})).toThrow(/leaves no tier/);
  });
});

describe('unmetNeeds: a tier asked for that cannot run is reported, never skipped', () => {
  const lacking =
    (...needs: string[]) =>
    (need: string) =>
      needs.includes(need) ? `install ${need}` : undefined;

  it('names each tier that lacks something, with how to get it', () => {
    expect(unmetNeeds(all as never, lacking('chromium', 'python-venv'))).toEqual([
      { tier: 'python', reasons: ['install python-venv'] },
      { tier: 'schemathesis', reasons: ['install python-venv'] },
      { tier: 'browser', reasons: ['install chromium'] },
    ]);
  });

  it('does not hold a tier that was not asked for against the run', () => {
    expect(
      unmetNeeds(['static', 'unit', 'conformance'], lacking(...Object.values(NEEDS).flat())),
    ).toEqual([]);
    expect(withoutTiers(['unit', 'browser', 'helm', 'image'], ['browser', 'image'])).toBe(
      '--tiers unit,helm',
    );
  });
});

describe('runPassed', () => {
  it('fails a run with a failed or a skipped step', () => {
    expect(runPassed([{ status: 'ok' }, { status: 'ok' }])).toBe(true);
    expect(runPassed([{ status: 'ok' }, { status: 'failed' }])).toBe(false);
    expect(runPassed([{ status: 'ok' }, { status: 'skipped' }])).toBe(false);
  });
});

describe('stepVerdict: a step that ran no test fails', () => {
  it('passes a step that exited 0 with passed tests in its report, or that names no report', () => {
    expect(stepVerdict(true, 'cross-service.json', { numPassedTests: 7 })).toEqual({
      status: 'ok',
    });
    expect(stepVerdict(true, undefined, undefined)).toEqual({ status: 'ok' });
  });

  it('fails a step that exited non-zero, whatever its report says', () => {
    expect(stepVerdict(false, 'cross-service.json', { numPassedTests: 7 }).status).toBe('failed');
    expect(stepVerdict(false, undefined, undefined).status).toBe('failed');
  });

  it('fails a step that exited 0 without its report or without a passed test', () => {
    expect(stepVerdict(true, 'cross-service.json', undefined)).toEqual({
      status: 'failed',
      reason: 'no report cross-service.json',
    });
    for (const report of [{ numPassedTests: 0 }, {}])
      expect(stepVerdict(true, 'e2e.json', report)).toEqual({
        status: 'failed',
        reason: 'ran no test (e2e.json)',
      });
  });
});

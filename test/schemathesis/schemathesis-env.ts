import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipIsFailure } from '@marquee/platform/testing';

/** This directory: requirements.txt, schemathesis.toml, hooks.py. */
export const stepDir = fileURLToPath(new URL('.', import.meta.url));

const python = process.env.PYTHON ?? 'python3';

/**
 * Whether `python3 -m venv` works here (Debian needs the python3-venv package for ensurepip). A
 * loud skip locally, a failure under CI and in `pnpm test` (skipIsFailure).
 */
export function requirePython(): boolean {
  const probe = spawnSync(python, ['-c', 'import venv, ensurepip, sys; print(sys.version)'], {
    encoding: 'utf8',
  });
  if (probe.status === 0) return true;
  const message = `no usable ${python}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()} (apt-get install -y python3-venv)`;
  if (skipIsFailure()) throw new Error(`cannot run: ${message}`);
  console.warn(
    `\n${'#'.repeat(100)}\n#  SKIPPED schemathesis contract test: ${message}\n${'#'.repeat(100)}\n`,
  );
  return false;
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, {
    cwd: stepDir,
    encoding: 'utf8',
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
  });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}):\n${r.stdout}\n${r.stderr}`,
    );
  }
}

/**
 * A virtual environment with requirements.txt (schemathesis from PyPI, pinned) installed, reused
 * while requirements.txt and the Python version stay the same. It lives with the other tools,
 * outside the work tree (`MARQUEE_TOOLS`, default ~/.cache/marquee). Returns its `schemathesis`.
 */
export function prepareSchemathesis(): string {
  const requirements = readFileSync(join(stepDir, 'requirements.txt'));
  const version = spawnSync(python, ['-c', 'import sys; print(sys.version)'], {
    encoding: 'utf8',
  }).stdout;
  const hash = createHash('sha256').update(requirements).update(version).digest('hex').slice(0, 12);
  const tools = process.env.MARQUEE_TOOLS ?? join(homedir(), '.cache', 'marquee');
  const venv = join(tools, `schemathesis-${hash}`);
  if (!existsSync(join(venv, '.complete'))) {
    // `.complete` is written last: an interrupted install is started over, never reused.
    rmSync(venv, { recursive: true, force: true });
    mkdirSync(tools, { recursive: true });
    run(python, ['-m', 'venv', venv]);
    run(join(venv, 'bin', 'python'), [
      '-m',
      'pip',
      'install',
      '-q',
      '-r',
      join(stepDir, 'requirements.txt'),
    ]);
    writeFileSync(join(venv, '.complete'), new Date().toISOString());
  }
  return join(venv, 'bin', 'schemathesis');
}

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipIsFailure } from '@marquee/platform/testing';

/** examples/python-consumer, the guide's code. */
export const exampleDir = fileURLToPath(
  new URL('../../examples/python-consumer/', import.meta.url),
);

/** A loud skip locally, a failure under CI and in `pnpm test` (like the integration tiers). */
function unavailable(what: string, reason: string): false {
  const message = `${what}: ${reason}`;
  if (skipIsFailure()) throw new Error(`cannot run: ${message}`);
  console.warn(
    `\n${'#'.repeat(100)}\n#  SKIPPED python consumer tests: ${message}\n${'#'.repeat(100)}\n`,
  );
  return false;
}

/** Whether the real Kafka is configured (KAFKA_BROKERS). */
export function requireKafka(): boolean {
  if (process.env.KAFKA_BROKERS) return true;
  return unavailable(
    'no real Kafka',
    'KAFKA_BROKERS is unset (bash deploy/local/infra.sh start; eval "$(bash deploy/local/infra.sh env)")',
  );
}

const python = process.env.PYTHON ?? 'python3';

/** Whether `python3 -m venv` works here (Debian needs the python3-venv package for ensurepip). */
export function requirePython(): boolean {
  const probe = spawnSync(python, ['-c', 'import venv, ensurepip, sys; print(sys.version)'], {
    encoding: 'utf8',
  });
  if (probe.status === 0) return true;
  return unavailable(
    `no usable ${python}`,
    `${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()} (apt-get install -y python3-venv)`,
  );
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, {
    cwd,
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
 * A virtual environment with examples/python-consumer/requirements.txt installed from PyPI, reused
 * while requirements.txt and the Python version stay the same (it lives with the other tools,
 * outside the work tree), and the protobuf classes generated into the example's gitignored gen/.
 * Returns the environment's python.
 */
export function preparePython(): string {
  const requirements = readFileSync(join(exampleDir, 'requirements.txt'));
  const version = spawnSync(python, ['-c', 'import sys; print(sys.version)'], {
    encoding: 'utf8',
  }).stdout;
  const hash = createHash('sha256').update(requirements).update(version).digest('hex').slice(0, 12);
  const tools = process.env.MARQUEE_TOOLS ?? join(homedir(), '.cache', 'marquee');
  const venv = join(tools, `python-consumer-${hash}`);
  const venvPython = join(venv, 'bin', 'python');
  if (!existsSync(join(venv, '.complete'))) {
    // `.complete` is written last: an interrupted install is started over, never reused.
    rmSync(venv, { recursive: true, force: true });
    mkdirSync(tools, { recursive: true });
    run(python, ['-m', 'venv', venv], tools);
    run(
      venvPython,
      ['-m', 'pip', 'install', '-q', '-r', join(exampleDir, 'requirements.txt')],
      exampleDir,
    );
    writeFileSync(join(venv, '.complete'), new Date().toISOString());
  }
  run(venvPython, ['generate.py'], exampleDir);
  return venvPython;
}

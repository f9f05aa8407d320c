/**
 * A benchmark run on the distributed stack (`test/support/stack.ts`: every service its own process
 * on free ports, real Kafka and the Mongo-wire server, databases of the run's own): the stack is
 * stopped at the end, on failure, on SIGINT/SIGTERM and at the run's deadline, so no service of a
 * run outlives it. `main` gets `start` to start the stack (its start-up counts against the
 * deadline); its result is printed as one JSON report on stdout. On failure the exit code is 1 and
 * the output of every service that exited is printed on stderr.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { startStack, type Stack, type StackOptions } from '../test/support/stack.ts';

/**
 * SIGTERM to this process's own children, found by parent pid in /proc (Linux): the services of a
 * stack still starting, which `startStack` has not handed back yet.
 */
function stopOwnChildren(): void {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return;
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid) process.kill(Number(pid), 'SIGTERM');
    } catch {
      // Gone meanwhile.
    }
  }
}

export async function runOnStack(
  label: string,
  deadlineSeconds: number,
  main: (start: (options: StackOptions) => Promise<Stack>) => Promise<unknown>,
): Promise<void> {
  let stack: Stack | undefined;
  let stopping: Promise<void> | undefined;
  const stopStack = () =>
    (stopping ??= stack ? stack.stop() : Promise.resolve().then(stopOwnChildren));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`${label}: ${signal}, stopping the services`);
      void stopStack().finally(() => process.exit(130));
    });
  }
  const deadline = setTimeout(() => {
    console.error(`${label}: not done after ${deadlineSeconds} s, stopping the services`);
    void stopStack().finally(() => process.exit(1));
  }, deadlineSeconds * 1000);
  deadline.unref();
  try {
    const report = await main(async (options) => (stack = await startStack(options)));
    console.log(JSON.stringify(report, null, 2));
  } catch (error) {
    console.error(`${label} failed:`, error);
    for (const [name, service] of stack?.services ?? []) {
      if (service.child.exitCode !== null)
        console.error(
          `--- ${name} exited (${service.child.exitCode}):\n${service.output.join('').slice(-4_000)}`,
        );
    }
    process.exitCode = 1;
  } finally {
    await stopStack();
    clearTimeout(deadline);
  }
}

/**
 * CPU seconds (user + system) each process used so far, from /proc/<pid>/stat (Linux; a process
 * that is gone, or another system, is left out).
 */
export function cpuSecondsOf(pids: Map<string, number | undefined>): Map<string, number> {
  const used = new Map<string, number>();
  for (const [name, pid] of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and
      // 13th, in clock ticks of 1/100 s (USER_HZ).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(name, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // Not Linux, or the process is gone.
    }
  }
  return used;
}

/** An access token of the stack's partner-reference (client credentials), as 3p-connector gets one. */
export async function partnerAccessToken(stack: Stack): Promise<string> {
  const response = await fetch(stack.partner.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: stack.partner.clientId,
      client_secret: stack.partner.clientSecret,
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`partner token: ${response.status} ${text}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/**
 * The pids of the Kafka broker and the Mongo-wire server `deploy/local/infra.sh` started (its state
 * directory, `MARQUEE_STATE`, which `infra.sh env` exports), when they are alive: their CPU is
 * counted with the services', since they share the same cores. Servers started some other way are
 * not found and not counted.
 */
export function infraPids(): Map<string, number> {
  const state = process.env.MARQUEE_STATE;
  const found = new Map<string, number>();
  if (!state) return found;
  for (const [name, file, pattern] of [
    ['kafka (infra)', 'kafka.pid', 'kafka'],
    ['ferretdb (infra)', 'ferretdb.pid', 'ferretdb'],
  ] as const) {
    try {
      const pid = Number(readFileSync(`${state}/${file}`, 'utf8').trim());
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').toLowerCase();
      if (cmdline.includes(pattern)) found.set(name, pid);
    } catch {
      // Not started by infra.sh, or not Linux.
    }
  }
  return found;
}

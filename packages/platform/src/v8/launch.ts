/**
 * `node --import @marquee/platform/v8/launch dist/main.js`: starts the entry's package with its V8
 * options (package.json `marquee.v8.nodeOptions`, with those of the workspace packages it hosts).
 * Node reads heap sizes before any JavaScript runs, so when the process was started without some
 * of them it replaces itself (`process.execve`: same process id, same environment, the missing
 * options added) before the entry loads. Started with all of them (NODE_OPTIONS in a container,
 * an explicit command line), it does nothing. Where `execve` does not exist (Windows), the process
 * goes on without them and says so.
 */
import { missingNodeOptions, packageDirOf, readV8Options } from './options.js';

const RELAUNCHED = 'MARQUEE_V8_RELAUNCHED';
const entry = process.argv[1];

if (process.env[RELAUNCHED] !== undefined) {
  // The replaced process: what it was missing is on its command line now. Its own children start
  // afresh.
  delete process.env[RELAUNCHED];
} else if (entry) {
  const missing = missingNodeOptions(readV8Options(packageDirOf(entry)).nodeOptions);
  if (missing.length > 0) {
    if (typeof process.execve === 'function') {
      process.execve(
        process.execPath,
        [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
        { ...process.env, [RELAUNCHED]: '1' },
      );
    } else {
      console.warn(`V8 options not applied (no process.execve here): ${missing.join(' ')}`);
    }
  }
}

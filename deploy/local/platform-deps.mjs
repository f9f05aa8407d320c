// Loads kafkajs / mongoose for the scripts in deploy/local from packages/platform's node_modules,
// so these scripts use exactly the client versions the services use and need no package of their own.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const platformPkg = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../packages/platform/package.json',
);

export async function loadPlatformDep(name) {
  const require = createRequire(platformPkg);
  let resolved;
  try {
    resolved = require.resolve(name);
  } catch {
    console.error(
      `cannot find '${name}' from packages/platform; run 'pnpm install' at the repository root first`,
    );
    process.exit(2);
  }
  const mod = await import(pathToFileURL(resolved).href);
  return mod.default ?? mod;
}

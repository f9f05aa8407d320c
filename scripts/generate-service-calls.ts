#!/usr/bin/env node
/**
 * Writes, from the one declaration of who calls whom — the ServiceDefinition of each service
 * (services/<name>/src/index.ts), which the runners, the embedded default and the local stacks use
 * too:
 *
 * - deploy/helm/marquee/files/calls.yaml, the services each service calls as the Helm chart knows
 *   them (its GRPC_ADDR_* and HTTP_URL_* variables, the callee's NetworkPolicy): its `calls` and `callsLater`;
 * - docs/rpc-callers.md, the services allowed to call each RPC: its `callers`, the allow-list its
 *   gRPC server enforces (docs/decisions.md, "Service-to-service authentication").
 *
 *   node scripts/generate-service-calls.ts           regenerate both files
 *   node scripts/generate-service-calls.ts --check   exit 1 when a committed file is not what the
 *                                                    definitions declare (run by `pnpm test`)
 *
 * The definitions are read from their source with the TypeScript parser (no build, nothing of the
 * services loaded): `calls` and `callers` of the object a `ServiceDefinition` variable is
 * initialised with, an array of string literals and an object literal of object literals of such
 * arrays. Anything else is an error rather than a guess. The declarations are checked against each
 * other and against proto/marquee: every RPC of every gRPC service there is declared by exactly one
 * service, each caller is a service, and each caller lists the callee in its `calls` (else the chart
 * would neither give it the address nor let it through the callee's NetworkPolicy).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
export const outputPath = join(root, 'deploy/helm/marquee/files/calls.yaml');
export const callersDocPath = join(root, 'docs/rpc-callers.md');

/** gRPC service → RPC → the services allowed to call it (ServiceDefinition's `callers`). */
export type Callers = Record<string, Record<string, string[]>>;

/** What one ServiceDefinition declares. */
export interface Declared {
  name: string;
  calls: string[];
  callers: Callers;
}

/** `name`, `calls` and `callers` of the ServiceDefinition in one service's `src/index.ts`. */
export function declaredCalls(file: string): Declared {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: Declared[] = [];
  const fail = (node: ts.Node, what: string): never => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    throw new Error(`${file}:${line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.type &&
      ts.isTypeReferenceNode(node.type) &&
      node.type.typeName.getText(source) === 'ServiceDefinition'
    ) {
      const init = node.initializer;
      if (!init || !ts.isObjectLiteralExpression(init)) {
        fail(node, 'a ServiceDefinition that is not an object literal');
      }
      let name: string | undefined;
      let calls: string[] = [];
      const callers: Callers = {};
      const strings = (list: ts.Expression, what: string): string[] => {
        if (!ts.isArrayLiteralExpression(list)) fail(list, `${what} is not an array literal`);
        return (list as ts.ArrayLiteralExpression).elements.map((element) =>
          ts.isStringLiteral(element)
            ? element.text
            : fail(element, `${what} holds something else than a string literal`),
        );
      };
      const keyOf = (property: ts.ObjectLiteralElementLike): string => {
        if (!ts.isPropertyAssignment(property)) fail(property, '`callers` holds no plain property');
        const key = (property as ts.PropertyAssignment).name;
        return ts.isStringLiteral(key) || ts.isIdentifier(key)
          ? key.text
          : fail(key, '`callers` has a computed key');
      };
      for (const property of (init as ts.ObjectLiteralExpression).properties) {
        if (!ts.isPropertyAssignment(property)) continue;
        const key = property.name.getText(source);
        if (key === 'name') {
          if (!ts.isStringLiteral(property.initializer)) fail(property, '`name` is not a string');
          name = (property.initializer as ts.StringLiteral).text;
        } else if (key === 'calls' || key === 'callsLater') {
          // Both are calls to the chart (addresses, NetworkPolicy) and to the callers' check.
          calls = [...calls, ...strings(property.initializer, `\`${key}\``)];
        } else if (key === 'callers') {
          const byService = property.initializer;
          if (!ts.isObjectLiteralExpression(byService)) fail(property, '`callers` is no object');
          for (const service of (byService as ts.ObjectLiteralExpression).properties) {
            const rpcs = (service as ts.PropertyAssignment).initializer;
            const grpcService = keyOf(service);
            if (!ts.isObjectLiteralExpression(rpcs)) fail(service, `${grpcService} is no object`);
            callers[grpcService] = {};
            for (const rpc of (rpcs as ts.ObjectLiteralExpression).properties) {
              const list = (rpc as ts.PropertyAssignment).initializer;
              callers[grpcService][keyOf(rpc)] = strings(list, `the callers of ${keyOf(rpc)}`);
            }
          }
        }
      }
      if (name === undefined) fail(node, 'a ServiceDefinition without `name`');
      found.push({ name: name!, calls, callers });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (found.length !== 1) {
    throw new Error(`${file}: ${found.length} ServiceDefinition declarations, expected one`);
  }
  return found[0]!;
}

/** Every service's declaration (every directory of services/ with a definition), checked. */
export function declarations(): Declared[] {
  const services = readdirSync(join(root, 'services'))
    .filter((dir) => existsSync(join(root, 'services', dir, 'src', 'index.ts')))
    .sort()
    .map((dir) => declaredCalls(join(root, 'services', dir, 'src', 'index.ts')));
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const { name, calls } of services) {
    for (const callee of calls) {
      if (!byName.has(callee)) throw new Error(`${name} calls ${callee}, which is no service`);
    }
  }
  const rpcs = protoServices();
  const host = new Map<string, string>();
  for (const { name, callers } of services) {
    for (const [grpcService, declared] of Object.entries(callers)) {
      const known = rpcs.get(grpcService);
      if (!known)
        throw new Error(`${name} declares callers of ${grpcService}, which no .proto has`);
      if (host.has(grpcService)) {
        throw new Error(`${host.get(grpcService)} and ${name} both declare ${grpcService}`);
      }
      host.set(grpcService, name);
      for (const rpc of known) {
        if (!declared[rpc]) throw new Error(`${name}: ${grpcService}/${rpc} declares no callers`);
      }
      for (const [rpc, allowed] of Object.entries(declared)) {
        if (!known.includes(rpc)) throw new Error(`${name}: ${grpcService} has no RPC ${rpc}`);
        for (const caller of allowed) {
          const calling = byName.get(caller);
          if (!calling) throw new Error(`${name}: ${rpc} names ${caller}, which is no service`);
          if (!calling.calls.includes(name)) {
            throw new Error(
              `${name}: ${rpc} admits ${caller}, whose ServiceDefinition does not list ${name} in its calls`,
            );
          }
        }
      }
    }
  }
  for (const grpcService of rpcs.keys()) {
    if (!host.has(grpcService)) throw new Error(`no ServiceDefinition declares ${grpcService}`);
  }
  return services;
}

/** Each service's `calls`, by service name. */
export function serviceCalls(): Map<string, string[]> {
  return new Map(declarations().map(({ name, calls }) => [name, calls]));
}

/** The RPCs of every gRPC service of proto/marquee, by the service's full name. */
export function protoServices(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.proto')) {
        const text = readFileSync(path, 'utf8').replace(/\/\/.*$/gm, '');
        const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
        for (const service of text.matchAll(/^service\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
          const rpcs = [...service[2]!.matchAll(/^\s*rpc\s+(\w+)\s*\(/gm)].map((m) => m[1]!);
          found.set(`${pkg}.${service[1]}`, rpcs);
        }
      }
    }
  };
  visit(join(root, 'proto', 'marquee'));
  return found;
}

/**
 * The file's text: every service, with the list of the services it calls (`[]` for none), in the
 * block style prettier leaves as written.
 */
export function serviceCallsFile(): string {
  const lines = [...serviceCalls()].flatMap(([name, calls]) =>
    calls.length === 0 ? [`${name}: []`] : [`${name}:`, ...calls.map((callee) => `  - ${callee}`)],
  );
  return [
    '# Generated by `node scripts/generate-service-calls.ts` from the ServiceDefinition of each service',
    '# (services/<name>/src/index.ts): `calls`, the one declaration of the services it calls; `pnpm test`',
    '# fails when this file is not current. Change the definition and run the script, never this file.',
    '# The chart gives each service the addresses of these (GRPC_ADDR_*, HTTP_URL_*) and admits it in',
    "# their NetworkPolicy (templates/_service.tpl), with any the values' `services.<name>.calls` add.",
    ...lines,
    '',
  ].join('\n');
}

/**
 * The docs' table of who may call which RPC: one section per serving service, one row per RPC, in
 * the order of the declarations.
 */
export function rpcCallersFile(): string {
  const sections = declarations()
    .filter(({ callers }) => Object.keys(callers).length > 0)
    .flatMap(({ name, callers }) => {
      const rows = Object.entries(callers).flatMap(([grpcService, rpcs]) =>
        Object.entries(rpcs).map(([rpc, allowed]) => [
          `\`${grpcService.split('.').at(-1)}/${rpc}\``,
          allowed.length === 0 ? 'none (closed)' : allowed.join(', '),
        ]),
      );
      return ['', `## ${name}`, '', ...table(['RPC', 'callers'], rows)];
    });
  return [
    '# Who may call which RPC',
    '',
    "<!-- Generated by `node scripts/generate-service-calls.ts` from the `callers` of each service's",
    'ServiceDefinition (services/<name>/src/index.ts); `pnpm test` fails when this file is not current.',
    'Change the definition and run the script, never this file. -->',
    '',
    'Every gRPC server of Marquee admits, for each RPC, only the services listed here, identified by',
    'their service token; any other caller, and an RPC not listed, is refused `PERMISSION_DENIED`',
    'before the handler runs. The rule and its reasons: [decisions.md](decisions.md),',
    '"Service-to-service authentication".',
    ...sections,
    '',
  ].join('\n');
}

/** A markdown table with columns padded as prettier pads them. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outputs = [
    { path: outputPath, wanted: serviceCallsFile(), what: 'calls' },
    { path: callersDocPath, wanted: rpcCallersFile(), what: 'callers' },
  ];
  if (process.argv.includes('--check')) {
    let stale = false;
    for (const { path, wanted, what } of outputs) {
      const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (committed !== wanted) {
        stale = true;
        console.error(
          `${path} is not what the services' ServiceDefinition ${what} declare: run node scripts/generate-service-calls.ts`,
        );
      }
    }
    if (stale) process.exit(1);
    console.log('service calls of the Helm chart and RPC callers of the docs are current');
  } else {
    for (const { path, wanted } of outputs) {
      writeFileSync(path, wanted);
      console.log(`wrote ${path}`);
    }
  }
}

// @ts-check
// The layer rule of a service's source (docs/decisions.md, "Layers"), as an ESLint rule: every
// file of `services/<name>/src` is a composition file at the top (main.ts, service.ts, config.ts,
// index.ts) or sits in a layer folder, `domain/`, `app/`, `adapters/` or `ports/`, of the core or
// of a slice (`src/<slice>/<layer>/`). Relative imports then go one way only:
//
// - domain imports domain; app imports app and domain; adapters and ports import anything below
//   them (ports may use adapters' mappers; adapters never import ports);
// - only composition files import composition files (adapters and ports may read `config.ts`);
// - the core never imports a slice, and a slice never imports another slice.
//
// What a layer may import from other packages (no infrastructure in domain/ and app/) is the
// `no-restricted-imports` block of eslint.config.js.
import path from 'node:path';

const LAYERS = ['domain', 'app', 'adapters', 'ports'];
/** What each layer may import, by layer. */
const MAY_IMPORT = {
  domain: ['domain'],
  app: ['app', 'domain'],
  adapters: ['adapters', 'app', 'domain'],
  ports: ['ports', 'adapters', 'app', 'domain'],
};

/**
 * Where a file of a service's src sits: `{ root, slice, layer }`, layer `compose` for a top-level
 * file and `undefined` for a file outside every layer folder; undefined outside services' src.
 * @param {string} file absolute path
 */
export function locate(file) {
  const match = /(?:^|\/)(services\/[^/]+\/src)\/(.+)$/.exec(file.split(path.sep).join('/'));
  if (!match) return undefined;
  const [, root, rest] = match;
  const parts = /** @type {string} */ (rest).split('/');
  if (parts.length === 1) return { root, slice: '', layer: 'compose', name: parts[0] };
  if (LAYERS.includes(parts[0] ?? '')) return { root, slice: '', layer: parts[0] };
  if (parts.length > 2 && LAYERS.includes(parts[1] ?? ''))
    return { root, slice: parts[0], layer: parts[1] };
  // A slice's `index.ts` composes the slice, as service.ts composes the service.
  if (parts.length === 2 && /^index\.[jt]s$/.test(parts[1] ?? ''))
    return { root, slice: parts[0], layer: 'compose', name: parts[1] };
  return { root, slice: parts[0], layer: undefined };
}

/**
 * Why `from` may not import `to`, or undefined when it may.
 * @param {NonNullable<ReturnType<typeof locate>>} from
 * @param {NonNullable<ReturnType<typeof locate>>} to
 */
export function refusal(from, to) {
  if (to.layer === undefined) return 'it imports a file outside the layer folders';
  if (from.layer === 'compose')
    return from.slice !== '' && to.slice !== '' && to.slice !== from.slice
      ? `a slice never imports another slice (${to.slice}/)`
      : undefined;
  if (to.layer === 'compose' && to.slice !== '' && from.slice === '')
    return `the core never imports a slice (${to.slice}/): wire slices in service.ts`;
  if (to.layer === 'compose') {
    const config = /^config\.[jt]s$/.test(to.name ?? '');
    if (config && (from.layer === 'adapters' || from.layer === 'ports')) return undefined;
    return `${from.layer}/ may not import ${to.name} (only adapters/ and ports/ read config.ts)`;
  }
  if (from.slice === '' && to.slice !== '')
    return `the core never imports a slice (${to.slice}/): wire slices in service.ts`;
  if (from.slice !== '' && to.slice !== '' && from.slice !== to.slice)
    return `a slice never imports another slice (${to.slice}/)`;
  const allowed = MAY_IMPORT[/** @type {keyof typeof MAY_IMPORT} */ (from.layer)];
  if (!allowed?.includes(/** @type {string} */ (to.layer)))
    return `${from.layer}/ may not import ${to.layer}/ (domain <- app <- adapters <- ports)`;
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const layerDirection = {
  meta: {
    type: 'problem',
    docs: { description: "Keeps a service's layers and slices pointing one way" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = locate(file);
    if (!from) return {};
    /** @param {import('estree').Node & { source?: import('estree').Node | null }} node */
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      if (!source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source.value);
      const to = locate(target);
      if (!to || to.root !== from.root) return;
      const why = refusal(from, to);
      if (why) context.report({ node: source, message: `Layer rule: ${why}.` });
    };
    return {
      Program(node) {
        if (from.layer === undefined)
          context.report({
            node,
            message:
              'Layer rule: a service file sits in domain/, app/, adapters/ or ports/ (of the core or of a slice), or at the top of src/.',
          });
      },
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'layer-direction': layerDirection } };

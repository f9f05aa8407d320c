import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * The ticket page: `GET /tickets/view#token=<token>` shows a ticket's rotating entry barcode,
 * drawn in the browser by the render kit (`GET /tickets/render-kit.js`, the `@marquee/render-kit`
 * bundle). The token travels in the URL fragment, which browsers never send to a server, so it
 * reaches no log. The page is static: a partner app can embed the kit the same way.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your ticket</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1.5rem; background: #f4f4f6; color: #111; }
  main { max-width: 28rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  #barcode svg { width: 100%; height: auto; }
  #barcode { min-height: 8rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
  dt { color: #555; }
  .error { color: #a00; }
  button { margin-top: 1rem; }
</style>
</head>
<body>
<main>
  <h1>Your ticket</h1>
  <div id="barcode" role="img" aria-label="Entry barcode"></div>
  <dl>
    <dt>Event</dt><dd id="event">-</dd>
    <dt>Barcode</dt><dd id="display">-</dd>
    <dt>Changes in</dt><dd id="countdown">-</dd>
  </dl>
  <p id="message" class="error" hidden></p>
  <button id="symbology" type="button">Show QR code</button>
</main>
<script type="module" src="/tickets/view.js"></script>
</body>
</html>
`;

const SCRIPT = `import { mountTicket, STEP_SECONDS } from '/tickets/render-kit.js';
const params = new URLSearchParams(location.hash.slice(1));
const token = params.get('token');
const host = document.getElementById('barcode');
const message = document.getElementById('message');
const button = document.getElementById('symbology');
let prefer = 'pdf417';
let view;
function show() {
  view?.stop();
  view = mountTicket(host, token, { prefer });
  document.getElementById('event').textContent = view.token.eventId;
  document.getElementById('display').textContent = 'XXXX' + view.token.barcode.slice(-4);
  button.hidden = view.token.renderType !== 'rotating_symbology';
}
function tick() {
  const left = STEP_SECONDS - Math.floor(Date.now() / 1000) % STEP_SECONDS;
  document.getElementById('countdown').textContent = view?.token.renderType === 'rotating_symbology' ? left + ' s' : 'never (static barcode)';
}
try {
  if (!token) throw new Error('No ticket: open this page with #token=<secure entry token>.');
  show();
  tick();
  setInterval(tick, 1000);
  button.addEventListener('click', () => {
    prefer = prefer === 'pdf417' ? 'qrcode' : 'pdf417';
    button.textContent = prefer === 'pdf417' ? 'Show QR code' : 'Show PDF417';
    show();
  });
} catch (error) {
  message.hidden = false;
  message.textContent = error instanceof Error ? error.message : String(error);
  button.hidden = true;
}
`;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** Where the kit's browser bundle is (built by `pnpm --filter @marquee/render-kit build`). */
const bundlePath = () => fileURLToPath(import.meta.resolve('@marquee/render-kit/bundle'));

export async function registerTicketPage(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  app.get('/tickets/view', hide, async (_request, reply) =>
    reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(PAGE),
  );
  app.get('/tickets/view.js', hide, async (_request, reply) =>
    reply.headers(SECURITY_HEADERS).type('text/javascript; charset=utf-8').send(SCRIPT),
  );
  let bundle: Buffer | undefined;
  app.get('/tickets/render-kit.js', hide, async (request, reply) => {
    try {
      bundle ??= await readFile(bundlePath());
    } catch (error) {
      request.log.error({ err: error }, 'the render kit bundle is not built');
      return reply
        .code(503)
        .type('application/json')
        .send({ error: { code: 'unavailable', message: 'The render kit is not built' } });
    }
    return reply
      .headers({ 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' })
      .type('text/javascript; charset=utf-8')
      .send(bundle);
  });
}

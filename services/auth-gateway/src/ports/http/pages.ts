/**
 * The login, consent and error pages of `/oauth/authorize`. Server-rendered HTML without scripts:
 * every dynamic value is escaped, and the Content-Security-Policy forbids scripts, frames and
 * foreign form targets (clickjacking and injection have nothing to work with).
 */
const escapeHtml = (value: string): string =>
  value.replace(/[&<>"'`=/]/g, (c) => `&#${c.charCodeAt(0)};`);

const style = `
  body{font-family:system-ui,sans-serif;background:#f4f4f6;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
  main{background:#fff;padding:2rem 2.5rem;border-radius:12px;box-shadow:0 2px 12px #0002;max-width:24rem;width:100%}
  h1{font-size:1.3rem;margin-top:0} label{display:block;margin:.8rem 0 .2rem;font-weight:600}
  input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #999;border-radius:6px;font-size:1rem}
  button{margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;border-radius:6px;border:0;background:#1a56db;color:#fff;cursor:pointer}
  button.secondary{background:#e5e7eb;color:#111;margin-left:.5rem}
  .error{color:#b91c1c;background:#fee2e2;padding:.6rem;border-radius:6px} .app{font-weight:700}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Marquee</title><style>${style}</style></head>
<body><main>${body}</main></body></html>`;
}

export function loginPage(input: { appName: string; csrf: string; error?: string }): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  return layout(
    'Sign in',
    `<h1>Sign in to Marquee</h1>
<p>to continue to <span class="app">${escapeHtml(input.appName)}</span></p>${error}
<form method="post" action="/oauth/authorize">
  <input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
  <input type="hidden" name="action" value="login">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(input: { appName: string; csrf: string; email: string }): string {
  return layout(
    'Authorize',
    `<h1><span class="app">${escapeHtml(input.appName)}</span> wants to access your Marquee account</h1>
<p>Signed in as ${escapeHtml(input.email)}.</p>
<p>${escapeHtml(input.appName)} will be able to use the Marquee APIs on your behalf (scope: all) and see your e-mail address.</p>
<form method="post" action="/oauth/authorize">
  <input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
  <button type="submit" name="action" value="approve">Approve</button>
  <button type="submit" name="action" value="decline" class="secondary">Decline</button>
</form>`,
  );
}

export function errorPage(input: { title: string; message: string }): string {
  return layout(
    input.title,
    `<h1>${escapeHtml(input.title)}</h1><p class="error" role="alert">${escapeHtml(input.message)}</p>`,
  );
}

/**
 * Headers of every page. `form-action` must also allow the app's redirect URI: Chromium applies it
 * to the redirect that follows the consent form's submission.
 */
export function pageHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const targets = ["'self'", ...formTargets].join(' ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

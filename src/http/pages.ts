/**
 * The service's hosted pages (the payment page, the billing portal, the OAuth authorization
 * page) share one layout and one small stylesheet, served by the service itself at
 * `/assets/pages.css`: no external fonts, CDNs or scripts, so the pages work offline, under a
 * strict Content-Security-Policy, and without JavaScript (plain forms that post and redirect).
 */

export const PAGES_STYLESHEET_PATH = '/assets/pages.css';

/**
 * System fonts only; contrast at least 4.5:1 (WCAG AA) for text and controls; a visible focus
 * ring; 44 px touch targets; readable line length; follows the reader's light or dark setting.
 */
export const PAGES_CSS = `:root{color-scheme:light dark;--fg:#1b2230;--muted:#4d566a;--bg:#f6f7fb;--card:#fff;--line:#d4d9e4;--accent:#1f4fc9;--accent-fg:#fff;--danger:#a4161a;--ok:#1d6b3a}
@media (prefers-color-scheme:dark){:root{--fg:#e8ebf2;--muted:#b3bacb;--bg:#12151c;--card:#1c212b;--line:#39414f;--accent:#8fb0ff;--accent-fg:#0d1220;--danger:#ff9b9b;--ok:#8fe0a8}}
*{box-sizing:border-box}
html{font:100%/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
body{margin:0;background:var(--bg);color:var(--fg)}
main{max-width:40rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--line);border-radius:12px}
header.site{max-width:40rem;margin:1.5rem auto 0;padding:0 1.5rem;color:var(--muted);font-weight:600;letter-spacing:.02em}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
p{margin:.5rem 0 1rem}
.muted,.note{color:var(--muted);font-size:.95rem}
.amount{font-size:2rem;font-weight:700;font-variant-numeric:tabular-nums;margin:.25rem 0 1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;word-break:break-all}
table{border-collapse:collapse;width:100%;margin-bottom:1rem}th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid var(--line)}
th.money,td.money{text-align:right;font-variant-numeric:tabular-nums}td abbr{white-space:nowrap}
form{margin:0}
label{display:block;font-weight:600;margin:0 0 1rem}
input[type=text],input[type=password],input:not([type]){display:block;width:100%;min-height:44px;margin-top:.35rem;padding:.5rem .75rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--muted);border-radius:8px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
button{min-height:44px;padding:.55rem 1.25rem;font:inherit;font-weight:600;border-radius:8px;border:2px solid var(--accent);cursor:pointer;background:var(--accent);color:var(--accent-fg)}
button.secondary{background:transparent;color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:3px}
[role=alert]{border-left:4px solid var(--danger);padding:.5rem .75rem;color:var(--danger);background:transparent}
.status-ok{color:var(--ok)}
`;

/** Headers every hosted page sends: nothing but its own stylesheet may load, and it cannot be framed. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
};

/** A page opened by a signed link (the link is the credential): never cached, never sent on as a referrer. */
export const LINKED_PAGE_HEADERS: Record<string, string> = {
  ...PAGE_HEADERS,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

/** The UTC date of a timestamp, as the pages show dates. */
export const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A whole page: `title` is text (escaped here), `body` is HTML the caller built with escaped values. */
export function htmlPage(title: string, body: string, options: { noindex?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.noindex ? '<meta name="robots" content="noindex">\n' : ''}<title>${escapeHtml(title)} · Marketplace</title>
<link rel="stylesheet" href="${PAGES_STYLESHEET_PATH}">
</head>
<body>
<header class="site">Marketplace</header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

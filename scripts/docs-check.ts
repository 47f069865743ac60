// Every route the docs name exists: each `METHOD /path` written in README.md or docs/*.md must be
// a route of the route table (or one the app serves outside it, listed below). Part of
// `npm run lint`; a page that names a route that was renamed or removed fails it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { routeTable } from '../src/http/app';
import type { Services } from '../src/http/services';

/**
 * Served outside the route table: metrics (its own listener), the OAuth metadata document, and
 * the Temporal codec server's endpoints (src/temporal/codec-server.ts, a process of its own).
 */
const OUTSIDE_THE_TABLE = ['GET /metrics', 'GET /.well-known/oauth-authorization-server', 'POST /decode', 'POST /encode'];

const ROOT = path.join(__dirname, '..');
// Development routes (`/dev/*`) are in the table only in development; the docs describe them too.
const config = loadConfig({
  NODE_ENV: 'development',
  DATABASE_URL: 'postgres://unused/unused',
  JWT_SECRET: 'x'.repeat(32),
});
const routes = routeTable({} as Services, config).map((r) => ({ method: r.method.toUpperCase(), path: r.path }));

/** A page's `/{user|seller}/…` names both routes. */
const expand = (written: string): string[] => {
  const choice = /\{(\w+(?:\|\w+)+)\}/.exec(written);
  return choice ? choice[1]!.split('|').flatMap((option) => expand(written.replace(choice[0], option))) : [written];
};

/** `{id}` in the table matches any one segment written in a page, `{id}` or a literal. */
const matches = (written: string, route: string) => {
  const w = written.split('/');
  const r = route.split('/');
  return w.length === r.length && r.every((segment, i) => segment === w[i] || /^\{\w+\}$/.test(segment));
};

const pages = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const unknown: string[] = [];
for (const page of pages) {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  for (const [, method, written] of text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_{}|.:/-]*)/g)) {
    const route = written!.replace(/[.:]+$/, '').replace(/\/$/, '');
    // A bare "/" is a separator in prose ("PUT / DELETE"), not a route.
    if (!route || OUTSIDE_THE_TABLE.includes(`${method} ${route}`)) continue;
    for (const one of expand(route)) {
      if (!routes.some((r) => r.method === method && matches(one, r.path))) unknown.push(`${page}: ${method} ${one}`);
    }
  }
}
if (unknown.length) {
  console.error(`Docs name routes the route table does not have:\n${[...new Set(unknown)].join('\n')}`);
  process.exit(1);
}

// Every route the docs name exists: each `METHOD /path` written in README.md or docs/*.md must be
// a route of the route table (or one the app serves outside it, listed below), and a status a page
// gives a route's answer (`METHOD /path` → 201, … answers 409, … returns 204, … is 405) must be
// one the route documents; and no section listing what is not built names a route the table has.
// Part of `npm run lint`; a page that names a route that was renamed or removed, an answer it no
// longer gives, or a feature as missing that now exists, fails it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { routeTable } from '../src/http/app';
import { buildOpenApi } from '../src/http/openapi';
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
const table = routeTable({} as Services, config);
const routes = table.map((r) => ({ method: r.method.toUpperCase(), path: r.path }));
const documented = buildOpenApi(table, 'http://localhost').paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;

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

/**
 * Whether `status` is an answer the route documents. The router itself answers 405 on a concrete
 * path of the table for a method it lacks, so that is one too.
 */
const answers = (method: string, written: string, status: string): boolean =>
  (status === '405' && routes.some((r) => r.path === written && r.method !== method)) ||
  routes.some((r) => {
    if (r.method !== method || !matches(written, r.path)) return false;
    const responses = documented[r.path]?.[method.toLowerCase()]?.responses ?? {};
    return status in responses || `${status[0]}XX` in responses;
  });

const wrongStatus: string[] = [];
for (const page of pages) {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  for (const [, method, written, status] of text.matchAll(
    /`(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_{}|.:/-]*)[^`]*`\s*(?:→|answers|returns|is)\s*(\d{3})\b/g,
  )) {
    const route = written!.replace(/[.:]+$/, '').replace(/\/$/, '');
    if (OUTSIDE_THE_TABLE.includes(`${method} ${route}`)) continue;
    for (const one of expand(route)) {
      if (!answers(method!, one, status!)) wrongStatus.push(`${page}: ${method} ${one} → ${status}`);
    }
  }
}

/**
 * Where a page says what is not there (a "Not done", "Left out", "Not built" or "Out of scope"
 * section, or a paragraph opening "Not built here:"), it may not name a route the table has: a
 * feature listed as missing that has since been built is the contradiction this catches.
 */
const MISSING_HEADING = /^(#+) .*\b(not done|left out|not built|out of scope)\b/i;
const saidMissing: string[] = [];
for (const page of pages) {
  const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  let level = 0; // the open "missing" section's heading level, 0: none
  let paragraph = false; // inside a "Not built here:" paragraph
  for (const line of lines) {
    const heading = /^(#+) /.exec(line);
    if (heading) level = MISSING_HEADING.test(line) ? heading[1]!.length : level && heading[1]!.length > level ? level : 0;
    paragraph = /^Not built here:/i.test(line) || (paragraph && line.trim() !== '');
    if (!level && !paragraph) continue;
    for (const [, method, written] of line.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_{}|.:/-]*)/g)) {
      const route = written!.replace(/[.:]+$/, '').replace(/\/$/, '');
      for (const one of expand(route)) {
        if (routes.some((r) => r.method === method && matches(one, r.path)))
          saidMissing.push(`${page}: ${method} ${one} (${line.trim().slice(0, 80)})`);
      }
    }
  }
}

if (unknown.length || wrongStatus.length || saidMissing.length) {
  if (saidMissing.length) console.error(`Docs list as not built a route the table has:\n${[...new Set(saidMissing)].join('\n')}`);
  if (unknown.length) console.error(`Docs name routes the route table does not have:\n${[...new Set(unknown)].join('\n')}`);
  if (wrongStatus.length) console.error(`Docs give answers the routes do not document:\n${[...new Set(wrongStatus)].join('\n')}`);
  process.exit(1);
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ObjectSchema } from 'joi';
import { loadConfig } from '../../src/config';
import { PROBLEM_TYPES } from '../../src/domain/problem-types';
import { routeTable } from '../../src/http/app';
import type { Services } from '../../src/http/services';
import { partValidator } from '../../src/http/validation';
import { DomainError } from '../../src/services/errors';
import { parseListingInput } from '../../src/services/listings/listing-input';

// What can be checked by machine of the rule in docs/errors-style.md: the catalogue's texts and
// every message the code hands a caller read as sentences in the caller's terms, and no
// validation message quotes a copy of the input the caller never sent.

const ROOT = path.resolve(__dirname, '../..');

/** Text outside `code` and "quoted names": what must read as prose. */
const prose = (text: string) => text.replace(/`[^`]*`/g, '``').replace(/"[^"]*"/g, '""');
/** `lineIds`, `sellerId`: an identifier written into prose instead of being quoted as a field. */
const CAMEL_CASE = /\b[a-z]{2,}[A-Z][a-z]\w*/g;

/** Why a sentence breaks the rule, or [] when it does not. */
function sentenceProblems(text: string, { complete = true } = {}): string[] {
  const problems: string[] = [];
  if (!/^[A-Z`"]/.test(text)) problems.push('starts lower-case');
  if (complete && !text.endsWith('.')) problems.push('does not end with a full stop');
  const words = prose(text);
  for (const name of words.match(CAMEL_CASE) ?? []) problems.push(`names ${name} unquoted`);
  if (/\b(undefined|null|NaN)\b|\[object /.test(words)) problems.push('prints a missing value');
  if (text.includes('""')) problems.push('quotes twice');
  return problems;
}

/** A template literal's text with each `${…}` (nested braces included) as `X`. */
function templateText(literal: string): string {
  let out = '';
  for (let i = 0; i < literal.length; i++) {
    if (literal[i] === '$' && literal[i + 1] === '{') {
      let depth = 1;
      for (i += 2; i < literal.length && depth > 0; i++) depth += literal[i] === '{' ? 1 : literal[i] === '}' ? -1 : 0;
      i -= 1;
      out += 'X';
    } else out += literal[i];
  }
  return out;
}

const LITERAL = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|` + '`(?:[^`\\\\]|\\\\.)*`';
/** `invalid('code', 'message'…`, `conflict(…)`, `new DomainError('kind', 'code', 'message'…`, `{ code: 'x', message: '…' }`. */
const CALL_SITE = new RegExp(
  String.raw`\b(?:invalid|conflict|forbidden|unavailable|unauthenticated|new DomainError)\(\s*((?:(?:${LITERAL})\s*,\s*)*)(${LITERAL})(\s*\+)?` +
    String.raw`|\bcode: '[a-z-]+', message: (${LITERAL})`,
  'g',
);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(file);
    else if (file.endsWith('.ts')) yield file;
  }
}

/** Every message a service, route or workflow hands a caller as a problem's `detail`. */
function callSiteMessages(): Array<{ at: string; text: string; complete: boolean }> {
  const found = [];
  for (const dir of ['src', 'activities', 'workflows']) {
    for (const file of sourceFiles(dir)) {
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of source.matchAll(CALL_SITE)) {
        const literal = (match[2] ?? match[4])!;
        const text = templateText(literal.slice(1, -1));
        // A kind or a code (`'validation-failed'`) is not the message; the helpers' own definitions name none.
        if (/^[a-z-]+$/.test(text) || file === path.join('src', 'services', 'errors.ts')) continue;
        const at = `${file}:${source.slice(0, match.index).split('\n').length}`;
        found.push({ at, text, complete: !match[3] });
      }
    }
  }
  return found;
}

describe('error messages (docs/errors-style.md)', () => {
  it("every text of the problem type catalogue is a sentence in the caller's terms", () => {
    const problems = Object.entries(PROBLEM_TYPES).flatMap(([code, type]) =>
      Object.entries(type.when as Record<string, string>).flatMap(([area, text]) =>
        sentenceProblems(text).map((problem) => `${code} (${area}): ${problem}: ${text}`),
      ),
    );
    expect(problems).toEqual([]);
  });

  it("every message the code answers with is a sentence in the caller's terms", () => {
    const messages = callSiteMessages();
    // The scan finds the call sites (it would pass vacuously if the pattern stopped matching).
    expect(messages.length).toBeGreaterThan(120);
    expect(messages.map((m) => m.at)).toContainEqual(expect.stringMatching(/^src\/services\/personal-access-tokens\.ts:/));
    const problems = messages.flatMap(({ at, text, complete }) => sentenceProblems(text, { complete }).map((p) => `${at}: ${p}: ${text}`));
    expect(problems).toEqual([]);
  });

  it('the check has teeth: it finds a lower-case start, a missing full stop, an internal name and a printed undefined', () => {
    expect(sentenceProblems('the listing is gone')).toEqual(['starts lower-case', 'does not end with a full stop']);
    expect(sentenceProblems('The sellerId is wrong.')).toEqual(['names sellerId unquoted']);
    expect(sentenceProblems('The `sellerId` is wrong.')).toEqual([]);
    expect(sentenceProblems('Only undefined of this listing are available.')).toEqual(['prints a missing value']);
    expect(sentenceProblems('""country"" must be a code.')).toEqual(['quotes twice']);
    expect(templateText('A basket holds at most ${MAX_BASKET_LINES} listings.')).toBe('A basket holds at most X listings.');
  });
});

describe('validation messages never quote a copy of the input the caller did not send', () => {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://unused/unused', JWT_SECRET: 'x'.repeat(32) });
  const routes = routeTable({} as Services, config);
  /** The 400's field messages for `body` sent to a route of the table. */
  const fieldMessages = (method: string, routePath: string, body: unknown): string[] => {
    const route = routes.find((r) => r.method === method && r.path === routePath)!;
    try {
      partValidator(route.request!.body as ObjectSchema, 'body')(body);
    } catch (err) {
      if (err instanceof DomainError) return (err.extensions.errors as Array<{ message: string }>).map((e) => e.message);
      throw err;
    }
    return [];
  };

  it('a lower-cased language is named as a rule, not echoed as "eng" (it was: `"language" with value "eng" fails to match the ISO 639-1 code pattern`)', () => {
    const listing = { urn: 'pokemon/base/base1/4', condition: 'NEAR_MINT', price: 100, quantity: 1, language: 'ENG' };
    const expected = ['"language" must be an ISO 639-1 language code of two letters, such as "en"'];
    expect(fieldMessages('post', '/seller/listings', listing)).toEqual(expected);
    // Bulk elements and CSV rows are validated outside the router, the same way.
    expect(parseListingInput(listing, { in: 'body', prefix: 'listings.0.' }).errors?.map((e) => e.message)).toEqual(expected);
  });

  it('an upper-cased country is named as a rule, quoted once, and no pattern is printed', () => {
    const rule = 'must be an ISO 3166-1 alpha-2 country code of two letters, such as "GB"';
    const address = { type: 'shipping', line1: 'Mannerheimintie 1', city: 'Helsinki', postalCode: '00100', state: '', country: 'gbr' };
    expect(fieldMessages('post', '/user/addresses', address)).toEqual([`"country" ${rule}`]);
    const option = { name: 'Tracked', price: 500, tracked: true, countries: ['gbr'] };
    expect(fieldMessages('post', '/seller/delivery-options', option)).toEqual([`"countries[0]" ${rule}`]);
    expect(fieldMessages('post', '/user/wants/{id}/optimizations', { country: 'gbr' })).toEqual([`"country" ${rule}`]);
    for (const message of [
      ...fieldMessages('post', '/user/addresses', address),
      ...fieldMessages('post', '/user/wants/{id}/optimizations', { country: 'gbr' }),
    ]) {
      expect(message).not.toMatch(/GBR|\/\^|pattern/);
    }
  });
});

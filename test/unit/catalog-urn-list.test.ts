import Joi from '../../src/joi';
import type { ValidationOptions } from 'joi';
import { catalogUrn, catalogUrnList } from '../../src/http/schemas';
import { isCatalogUrn } from '../../src/services/catalog/urn';
import { prng } from '../support/random';

// The options requests are validated with (src/http/validation.ts).
const OPTIONS: ValidationOptions = { abortEarly: false, convert: true, errors: { wrap: { label: '"' } } };

/** Strings near the rule's edges: URN characters, separators, spaces, commas, NUL, non-ASCII, up to 110 long. */
function randomString(random: () => number): string {
  const alphabet = ['a', 'Z', '0', '.', '_', '~', '-', '/', '/', '/', ' ', ',', '\0', 'é', '\u{1F600}'];
  const length = random() < 0.1 ? 95 + Math.floor(random() * 15) : Math.floor(random() * 12);
  let s = '';
  while (s.length < length) s += random() < 0.8 ? 'abc'[Math.floor(random() * 3)]! : alphabet[Math.floor(random() * alphabet.length)]!;
  return s;
}

describe('catalogUrnList (a fast path for long URN lists)', () => {
  it('accepts exactly the strings catalogUrn accepts', () => {
    const random = prng(19);
    const fixed = ['', 'a', 'a/', '/a', 'a//b', 'pokemon/base/base1/4', 'x'.repeat(100), 'x'.repeat(101), 'a b', 'a,b', 'pokémon'];
    const values: unknown[] = [...fixed, ...Array.from({ length: 5000 }, () => randomString(random)), 4, null, {}, ['a']];
    let accepted = 0;
    for (const value of values) {
      const joi = catalogUrn.validate(value, OPTIONS).error === undefined;
      expect([value, isCatalogUrn(value)]).toEqual([value, joi]);
      if (joi) accepted += 1;
    }
    // Both outcomes are exercised, not only one.
    expect(accepted).toBeGreaterThan(500);
    expect(values.length - accepted).toBeGreaterThan(500);
  });

  it('answers every list exactly as validating each element does: the same value, the same errors', () => {
    const random = prng(7);
    const full = Joi.array().items(catalogUrn).min(1).max(5);
    const fast = catalogUrnList(1, 5);
    let failed = 0;
    for (let n = 0; n < 2000; n += 1) {
      const length = Math.floor(random() * 7);
      const list = Array.from({ length }, () =>
        random() < 0.85 ? `pokemon/base/base1/${Math.floor(random() * 100)}` : randomString(random),
      );
      const [a, b] = [fast.validate(list, OPTIONS), full.validate(list, OPTIONS)];
      expect(a.value).toEqual(b.value);
      expect(a.error?.details.map((d) => [d.path, d.message])).toEqual(b.error?.details.map((d) => [d.path, d.message]));
      if (b.error) failed += 1;
    }
    expect(failed).toBeGreaterThan(200);
    expect(failed).toBeLessThan(1800);
  });

  it('is documented as the list of catalog URNs it validates', () => {
    const documented = catalogUrnList(1, 200)
      .describe()
      .metas?.find((m) => m.documentedAs)?.documentedAs;
    expect(documented).toEqual(Joi.array().items(catalogUrn).min(1).max(200).describe());
  });
});

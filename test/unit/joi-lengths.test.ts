import Joi from '../../src/joi';

describe("the project's Joi counts string lengths in code points", () => {
  const between = Joi.string().min(2).max(3);
  const type = (value: string) => between.validate(value).error?.details[0]?.type ?? 'ok';

  it('takes as many astral characters as the limit, and refuses one more', () => {
    expect(type('😀😀😀')).toBe('ok'); // 6 UTF-16 units
    expect(type('😀😀😀😀')).toBe('string.max');
    expect(type('abcd')).toBe('string.max');
  });

  it('counts a surrogate pair as one towards a minimum', () => {
    expect(type('😀')).toBe('string.min'); // 2 UTF-16 units, one character
    expect(type('a😀')).toBe('ok');
    expect(Joi.string().length(2).validate('😀😀').error).toBeUndefined();
    expect(Joi.string().length(2).validate('😀').error?.details[0]?.type).toBe('string.length');
  });

  it('keeps the rules as Joi describes them, so the OpenAPI conversion is unchanged', () => {
    expect(between.describe().rules).toEqual([
      { name: 'min', args: { limit: 2 } },
      { name: 'max', args: { limit: 3 } },
    ]);
  });

  it('resolves a limit given as a reference', () => {
    const schema = Joi.object({ n: Joi.number(), s: Joi.string().max(Joi.ref('n')) });
    expect(schema.validate({ n: 1, s: '😀' }).error).toBeUndefined();
    expect(schema.validate({ n: 1, s: 'ab' }).error?.details[0]?.type).toBe('string.max');
  });
});

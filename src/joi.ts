import BaseJoi from 'joi';

/**
 * The project's Joi. Every module imports Joi from here (lint refuses `joi` elsewhere), so one
 * rule holds everywhere: a string's `min`, `max` and `length` count Unicode code points, what a
 * person typed and what the published JSON Schema's `minLength`/`maxLength` count (and what a
 * PostgreSQL `varchar(n)` counts), not UTF-16 units: a 100-character title may hold 100 emoji.
 *
 * The rules keep their names (`max`, …), so descriptions, error codes (`string.max`) and the
 * OpenAPI conversion are unchanged; only the counting moves to `codePointLength`. Byte limits
 * (Joi's `max(n, encoding)`) are not offered: no request field is limited in bytes.
 */
type Operator = '<=' | '>=' | '=';

function codePoints(value: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return value.length - surrogatePairs;
}

const holds = (length: number, operator: Operator, limit: number): boolean =>
  operator === '<=' ? length <= limit : operator === '>=' ? length >= limit : length === limit;

function lengthRule(name: 'min' | 'max' | 'length', operator: Operator) {
  return function (this: BaseJoi.StringSchema, limit: number | BaseJoi.Reference, ...encoding: unknown[]) {
    if (encoding.length > 0) throw new Error(`string.${name}: lengths count code points; no encoding is taken`);
    return this.$_addRule({ name, method: 'codePointLength', args: { limit }, operator } as never);
  };
}

const Joi: BaseJoi.Root = BaseJoi.extend({
  type: 'string',
  base: BaseJoi.string(),
  rules: {
    codePointLength: {
      method: false,
      args: [
        {
          name: 'limit',
          ref: true,
          assert: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0,
          message: 'must be a positive integer',
        },
      ],
      validate(
        value: string,
        helpers,
        { limit }: { limit: number },
        { name, operator, args }: { name: string; operator: Operator; args: { limit: unknown } },
      ) {
        // A string no longer in UTF-16 units than the limit has no more code points either.
        const length = operator === '<=' && value.length <= limit ? value.length : codePoints(value);
        return holds(length, operator, limit) ? value : helpers.error(`string.${name}`, { limit: args.limit, value });
      },
    },
  },
  overrides: {
    min: lengthRule('min', '>='),
    max: lengthRule('max', '<='),
    length: lengthRule('length', '='),
  },
} as BaseJoi.Extension);

export default Joi;

/**
 * How every request part, listing row and wants line is validated: every failing field listed,
 * values converted, labels quoted (`"price" must be …`). A pattern's message never quotes the
 * value: after `.trim()`, `.lowercase()` or `.uppercase()` it would be a copy the caller never
 * sent (`"eng"` for `ENG`), and without a name it would print the regex. A pattern says what it
 * wants through its name, written to follow "must be" (docs/errors-style.md).
 */
export const VALIDATION_OPTIONS: BaseJoi.ValidationOptions = {
  abortEarly: false,
  convert: true,
  errors: { wrap: { label: '"' } },
  messages: {
    'string.pattern.name': '{{#label}} must be {{#name}}',
    'string.pattern.base': '{{#label}} is not in the format the OpenAPI document gives for it',
    'string.pattern.invert.name': '{{#label}} must not be {{#name}}',
    'string.pattern.invert.base': '{{#label}} is in a format that is not accepted here',
  },
};

import { toJsonBytes } from '../../src/json-bytes';

describe('toJsonBytes', () => {
  const value = { game: 'Pokémon', arrow: '→', emoji: '🃏', quote: 'say "hi"\n', n: [1, null, true] };

  it('writes only ASCII bytes', () => {
    const bytes = toJsonBytes(value);
    expect(bytes.every((b) => b < 0x80)).toBe(true);
    expect(bytes.toString('latin1')).toContain('"Pok\\u00e9mon"');
    // Beyond U+FFFF: the surrogate pair, each half escaped.
    expect(bytes.toString('latin1')).toContain('"\\ud83c\\udccf"');
  });

  it('denotes exactly the same JSON value', () => {
    expect(JSON.parse(toJsonBytes(value).toString('utf8'))).toEqual(value);
    expect(toJsonBytes([]).toString()).toBe('[]');
  });
});

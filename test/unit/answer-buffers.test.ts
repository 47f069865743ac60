import { AnswerBuffers } from '../../src/http/answer-buffers';

/** Pieces as a bulk lookup sends them: `[`, items between commas, `]`. */
function pieces(items: number, itemBytes: number, fill = 'x'): Buffer[] {
  const parts: Buffer[] = [Buffer.from('[')];
  for (let n = 0; n < items; n += 1) {
    if (n > 0) parts.push(Buffer.from(','));
    parts.push(Buffer.from(`"${fill.repeat(itemBytes - 2)}"`));
  }
  parts.push(Buffer.from(']'));
  return parts;
}

const KiB = 1024;

describe('AnswerBuffers', () => {
  it('joins pieces into exactly their bytes', () => {
    const parts = pieces(200, 900);
    const { bytes } = new AnswerBuffers(8 * 1024 * KiB).assemble(parts);
    expect(bytes.equals(Buffer.concat(parts))).toBe(true);
    expect(JSON.parse(bytes.toString('latin1'))).toHaveLength(200);
  });

  it('reuses a buffer only once the answer it held was sent', () => {
    const buffers = new AnswerBuffers(8 * 1024 * KiB);
    const first = buffers.assemble(pieces(200, 900, 'a'));
    const second = buffers.assemble(pieces(200, 900, 'b'));
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(first.bytes.toString('latin1')).toContain('"aaa');

    first.sent!();
    expect(buffers.waitingBytes).toBe(256 * KiB);
    const third = buffers.assemble(pieces(150, 900, 'c'));
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(buffers.waitingBytes).toBe(0);
    expect(JSON.parse(third.bytes.toString('latin1'))).toEqual(Array(150).fill('c'.repeat(898)));
    // The answer not yet sent is untouched by the reuse of another's buffer.
    expect(JSON.parse(second.bytes.toString('latin1'))).toEqual(Array(200).fill('b'.repeat(898)));
  });

  it('gives a buffer back once, however often `sent` is called', () => {
    const buffers = new AnswerBuffers(8 * 1024 * KiB);
    const answer = buffers.assemble(pieces(10, 900));
    answer.sent!();
    answer.sent!();
    expect(buffers.waitingBytes).toBe(16 * KiB);
    const a = buffers.assemble(pieces(10, 900));
    const b = buffers.assemble(pieces(10, 900));
    expect(a.bytes.buffer).toBe(answer.bytes.buffer);
    expect(b.bytes.buffer).not.toBe(answer.bytes.buffer);
  });

  it('keeps buffers by size: a small answer does not take a large buffer', () => {
    const buffers = new AnswerBuffers(8 * 1024 * KiB);
    const large = buffers.assemble(pieces(200, 900));
    large.sent!();
    const small = buffers.assemble(pieces(10, 900));
    expect(small.bytes.buffer).not.toBe(large.bytes.buffer);
    expect(small.bytes.buffer.byteLength).toBe(16 * KiB);
    expect(buffers.waitingBytes).toBe(256 * KiB);
  });

  it('keeps at most its budget waiting; the rest is left to the collector', () => {
    const buffers = new AnswerBuffers(600 * KiB);
    const answers = [1, 2, 3].map(() => buffers.assemble(pieces(200, 900)));
    for (const answer of answers) answer.sent!();
    expect(buffers.waitingBytes).toBe(512 * KiB);
  });

  it('copies nothing for one piece, and does not pool the tiny or the huge', () => {
    const buffers = new AnswerBuffers(8 * 1024 * KiB);
    const whole = Buffer.from('{"total":0,"hits":[]}');
    expect(buffers.assemble([whole])).toEqual({ bytes: whole });

    for (const parts of [pieces(3, 100), pieces(2, 600 * KiB)]) {
      const answer = buffers.assemble(parts);
      expect(answer.bytes.equals(Buffer.concat(parts))).toBe(true);
      expect(answer.sent).toBeUndefined();
      expect(buffers.waitingBytes).toBe(0);
    }
  });
});

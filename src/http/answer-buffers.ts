/** Answers shorter than this are joined by `Buffer.concat`: below 4 kB it slices Node's shared pool, which costs no malloc. */
const SMALLEST_CLASS_BITS = 12;
/** Longer answers (more than 1 MiB) are rare enough to be allocated each time. */
const LARGEST_CLASS_BITS = 20;

/** An answer's bytes as one Buffer, and, when they are in a reused buffer, what to call once they have been sent. */
export interface Assembled {
  bytes: Buffer;
  /** Gives the buffer back; call it only once the bytes are no longer needed (the response's 'finish'). */
  sent?: () => void;
}

/**
 * Reused buffers for JSON answers assembled from kept pieces (a bulk lookup's cached items, a
 * page of cached hits): the pieces are copied into a buffer taken from here, and the router gives
 * it back once Node has handed the response to the kernel ('finish'). A response that never
 * finishes (its client went away) keeps its buffer, and the collector frees it.
 *
 * Why: every such answer was a fresh Buffer (a 200-URN bulk lookup's is about 183 kB), and V8
 * starts a full collection whenever the external memory of its Buffers grows 64 MB past what the
 * last one left: under load that was several a second. Freed in between the cache's long-lived
 * loads, they also fragmented glibc's heap (docs/discover.md, "Answers are joined in reused buffers").
 * Buffers come in power-of-two sizes from 4 kB to 1 MiB; at most `keepBytes` of them wait here.
 */
export class AnswerBuffers {
  /** Free buffers by size class (index = log2(size) − SMALLEST_CLASS_BITS), most recently used last. */
  private readonly free: Buffer[][] = Array.from({ length: LARGEST_CLASS_BITS - SMALLEST_CLASS_BITS + 1 }, () => []);
  private freeBytes = 0;

  constructor(private readonly keepBytes: number) {}

  /** `parts` joined into one Buffer. */
  assemble(parts: readonly Buffer[]): Assembled {
    if (parts.length === 1) return { bytes: parts[0]! };
    let length = 0;
    for (const part of parts) length += part.length;
    const bits = Math.max(SMALLEST_CLASS_BITS, Math.ceil(Math.log2(length)));
    if (length < 1 << SMALLEST_CLASS_BITS || bits > LARGEST_CLASS_BITS) {
      return { bytes: Buffer.concat(parts, length) };
    }
    const buffer = this.take(bits);
    let at = 0;
    for (const part of parts) at += part.copy(buffer, at);
    let given = false;
    const sent = () => {
      if (given) return;
      given = true;
      this.giveBack(bits, buffer);
    };
    return { bytes: buffer.subarray(0, length), sent };
  }

  /** Bytes waiting to be reused. */
  get waitingBytes(): number {
    return this.freeBytes;
  }

  private take(bits: number): Buffer {
    const buffer = this.free[bits - SMALLEST_CLASS_BITS]!.pop();
    if (!buffer) return Buffer.allocUnsafeSlow(1 << bits);
    this.freeBytes -= buffer.length;
    return buffer;
  }

  private giveBack(bits: number, buffer: Buffer): void {
    if (this.freeBytes + buffer.length > this.keepBytes) return;
    this.free[bits - SMALLEST_CLASS_BITS]!.push(buffer);
    this.freeBytes += buffer.length;
  }
}

import { channelSpread, decodeImage, DEFAULT_DECODE_LIMITS, type CleanedImage, type DecodeLimits } from './decode';
import { loadSharp } from './sharp';

export interface ImageProcessorOptions {
  limits: DecodeLimits;
  /** Decodes running at once in this process; the others wait their turn, first come first served. */
  concurrency: number;
  /** Decodes allowed to wait; one more is refused at once (the caller answers 503) rather than queued without bound. */
  maxQueued: number;
}

export const DEFAULT_IMAGE_PROCESSOR: ImageProcessorOptions = { limits: DEFAULT_DECODE_LIMITS, concurrency: 2, maxQueued: 64 };

/** Thrown when the queue of decodes waiting their turn is full. */
export class ImageQueueFull extends Error {
  constructor() {
    super('too many images are waiting to be decoded');
    this.name = 'ImageQueueFull';
  }
}

/**
 * The one place an API process decodes images (uploads, attachments, avatars). What bounds its
 * memory (docs/seller-listings.md, "Image processing"):
 * - budgets checked on the header before any pixel is decoded (pixels per frame, frames, pixels
 *   over all frames), with libvips' `limitInputPixels` behind them should a header lie;
 * - decoding streams into the encoder (no raw buffer of every frame), so one decode holds
 *   about one frame;
 * - at most `concurrency` decodes at once, each on one libvips thread (`sharp.concurrency(1)`),
 *   without libvips' operation cache (`sharp.cache(false)`, which would keep decoded images
 *   after the request); the rest wait in a bounded queue.
 * sharp's pixel memory is native, outside the V8 heap, so a worker thread's `resourceLimits`
 * would bound none of it: the budgets and the number of decodes at once are what does.
 */
export class ImageProcessor {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private configured: Promise<void> | undefined;

  constructor(readonly options: ImageProcessorOptions = DEFAULT_IMAGE_PROCESSOR) {}

  get limits(): DecodeLimits {
    return this.options.limits;
  }

  /** Decodes at once now (for tests and metrics). */
  get active(): number {
    return this.running;
  }

  /** Decodes, checks and re-encodes without metadata (see `decodeImage`), in turn. */
  clean(bytes: Buffer): Promise<CleanedImage> {
    return this.run(() => decodeImage(bytes, this.options.limits));
  }

  /** The largest per-channel standard deviation of the first frame (blank-image check), in turn. */
  spread(bytes: Buffer): Promise<number> {
    return this.run(() => channelSpread(bytes));
  }

  /** Runs `work` (which decodes) when a slot is free. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.configured ??= loadSharp().then((sharp) => {
      sharp.cache(false);
      sharp.concurrency(1);
    });
    await this.configured;
    if (this.running >= this.options.concurrency) {
      if (this.waiting.length >= this.options.maxQueued) throw new ImageQueueFull();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so `running` never drops under a waiting decode.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

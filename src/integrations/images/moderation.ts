import { channelSpread, type DecodedImage } from './decode';
import type { ImageProcessor } from './processor';

/**
 * Decides whether a decoded image may be shown to another user. Returns the reasons to refuse
 * it (stable codes), or none. A classifier service (nudity, violence) implements the same port
 * in a deployment; see docs/conversations.md for why the embedded default has none.
 */
export interface ImageModerator {
  review(image: DecodedImage, bytes: Buffer): Promise<string[]>;
}

export interface EmbeddedModerationOptions {
  /** Smallest width and height: below it a picture shows nothing (tracking pixels, spacer images). */
  minSide: number;
  /** Largest per-channel standard deviation still counted as one flat colour. */
  blankSpread: number;
}

export const DEFAULT_MODERATION: EmbeddedModerationOptions = { minSide: 16, blankSpread: 2 };

/**
 * The embedded default: refuses what can be detected for certain without a model. Decoding
 * already refused undecodable, disguised, oversized and animation-bomb images (their reasons
 * come through); this adds tiny and blank pictures.
 */
export class EmbeddedImageModerator implements ImageModerator {
  constructor(
    private readonly options: EmbeddedModerationOptions = DEFAULT_MODERATION,
    /** Where the blank check decodes (in turn with every other decode); directly when absent. */
    private readonly images?: ImageProcessor,
  ) {}

  async review(image: DecodedImage, bytes: Buffer): Promise<string[]> {
    if (image.reasons.length > 0) return image.reasons;
    const reasons: string[] = [];
    if (image.width < this.options.minSide || image.height < this.options.minSide) reasons.push('too-small');
    else if ((await (this.images ? this.images.spread(bytes) : channelSpread(bytes))) <= this.options.blankSpread) reasons.push('blank');
    return reasons;
  }
}

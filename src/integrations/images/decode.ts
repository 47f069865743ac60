import type { Metadata } from 'sharp';
import { detectImageType, type ImageType } from './image-type';
import { loadSharp } from './sharp';

/** Bounds on what is decoded at all; anything beyond them is refused before it costs memory. */
export interface DecodeLimits {
  /** Largest encoded size accepted. */
  maxBytes: number;
  /** Largest width × height of one frame. */
  maxPixels: number;
  /** Most frames an animated image may have. */
  maxFrames: number;
  /** Largest width × height × frames: what decoding every frame costs in time. */
  maxTotalPixels: number;
}

/**
 * The budgets (docs/seller-listings.md, "Image processing"). One frame of 40 MP is a 36 MP camera
 * photo with room to spare; an animation may not cost more in all its frames than that one
 * still (40 MP: 100 frames of 630×630, or 20 of 1400×1400), so the worst animation takes no
 * longer to re-encode than the worst photo.
 */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxPixels: 40_000_000,
  maxFrames: 100,
  maxTotalPixels: 40_000_000,
};

/** What decoding learnt about an image; `reasons` is empty when it is usable. */
export interface DecodedImage {
  /** The format its bytes really are (magic bytes, confirmed by the decoder), or null. */
  type: ImageType | null;
  width: number;
  height: number;
  frames: number;
  byteSize: number;
  /** Whether the image carries EXIF, XMP, IPTC or ICC metadata (GPS positions live in EXIF). */
  hasMetadata: boolean;
  /** Why the image cannot be used (stable codes, see docs/seller-listings.md); empty when fine. */
  reasons: string[];
}

/** A decoded image and, when it is usable, its bytes re-encoded without metadata. */
export interface CleanedImage extends DecodedImage {
  /** The clean bytes (null when `reasons` is not empty). */
  clean: Buffer | null;
}

const FORMAT_TYPES: Record<string, ImageType> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * Reads an image's header only (libvips through sharp): format, size and frame count, without
 * decoding a pixel, so the budgets are checked before anything is expanded.
 */
export async function inspectImage(bytes: Buffer, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<DecodedImage> {
  const result: DecodedImage = { type: null, width: 0, height: 0, frames: 0, byteSize: bytes.length, hasMetadata: false, reasons: [] };
  if (bytes.length > limits.maxBytes) result.reasons.push('too-many-bytes');
  const magic = detectImageType(bytes);
  if (!magic) {
    result.reasons.push('unsupported-type');
    return result;
  }
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    result.reasons.push('undecodable');
    return result;
  }
  const decoded = meta.format ? FORMAT_TYPES[meta.format] : undefined;
  if (decoded !== magic) {
    // The leading bytes claim one format, the decoder found another: a polyglot or a disguise.
    result.reasons.push('type-mismatch');
    return result;
  }
  result.type = magic;
  result.width = meta.width ?? 0;
  result.height = meta.pageHeight ?? meta.height ?? 0;
  result.frames = meta.pages ?? 1;
  result.hasMetadata = Boolean(meta.exif || meta.xmp || meta.iptc || meta.icc);
  const pixels = result.width * result.height;
  if (pixels > limits.maxPixels) result.reasons.push('too-many-pixels');
  if (result.frames > limits.maxFrames) result.reasons.push('too-many-frames');
  if (pixels * result.frames > limits.maxTotalPixels) result.reasons.push('animation-too-large');
  return result;
}

/**
 * Decodes an image for real and re-encodes it without metadata, in one streaming pass: the
 * header is checked against the budgets first, then every frame is decoded with
 * `failOn: 'error'` (a truncated or corrupt file is refused here, not by a client) straight into
 * the encoder. Nothing holds all frames' pixels at once: libvips pulls the image through in
 * strips, so the working set is about one frame, not width × height × frames.
 */
export async function decodeImage(bytes: Buffer, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<CleanedImage> {
  const inspected = await inspectImage(bytes, limits);
  if (inspected.reasons.length > 0) return { ...inspected, clean: null };
  try {
    return { ...inspected, clean: await stripMetadata(bytes, inspected.type!, inspected.width * inspected.height * inspected.frames) };
  } catch {
    return { ...inspected, reasons: ['undecodable'], clean: null };
  }
}

/**
 * Per-channel statistics of the first frame, for content checks (blank images). Channel
 * standard deviations near zero mean a single flat colour.
 */
export async function channelSpread(bytes: Buffer): Promise<number> {
  const sharp = await loadSharp();
  const stats = await sharp(bytes, { failOn: 'error' }).stats();
  return Math.max(...stats.channels.map((c) => c.stdev));
}

/**
 * Re-encodes an image in its own format with every metadata block dropped (EXIF with its GPS
 * position, XMP, IPTC, comments); the EXIF orientation is applied to the pixels first so the
 * picture still shows the right way up. Animated WebP stays animated. `maxInputPixels` (all
 * frames) is libvips' own guard should the header have lied.
 */
export async function stripMetadata(bytes: Buffer, type: ImageType, maxInputPixels: number | false = false): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(bytes, { animated: type === 'image/webp', failOn: 'error', limitInputPixels: maxInputPixels }).autoOrient();
  // sharp writes no metadata unless asked (`keepMetadata`/`withMetadata`), so the output is clean.
  switch (type) {
    case 'image/png':
      return image.png().toBuffer();
    case 'image/jpeg':
      return image.jpeg({ quality: 90, mozjpeg: true }).toBuffer();
    case 'image/webp':
      return image.webp({ quality: 90 }).toBuffer();
  }
}

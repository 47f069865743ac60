import sharp from 'sharp';
import { decodeImage, DEFAULT_DECODE_LIMITS, stripMetadata } from '../../src/integrations/images/decode';
import { EmbeddedImageModerator } from '../../src/integrations/images/moderation';
import { animatedWebp, blankPng, jpegWithGps, png } from '../support/images';

describe('decodeImage', () => {
  it('reports type, size and frames of a usable image', async () => {
    const decoded = await decodeImage(await animatedWebp(3));
    expect(decoded).toMatchObject({ type: 'image/webp', width: 32, height: 32, frames: 3, reasons: [] });
    expect((await decodeImage(await jpegWithGps())).hasMetadata).toBe(true);
  });

  it('refuses by pixels, frames and total animation size before decoding pixels', async () => {
    const limits = { ...DEFAULT_DECODE_LIMITS, maxPixels: 1500, maxFrames: 5, maxTotalPixels: 5000 };
    expect((await decodeImage(await png(40, 40), limits)).reasons).toEqual(['too-many-pixels']);
    expect((await decodeImage(await animatedWebp(6), limits)).reasons).toEqual(['too-many-frames', 'animation-too-large']);
    expect((await decodeImage(await png(), { ...limits, maxBytes: 10 })).reasons).toContain('too-many-bytes');
  });

  it('refuses a disguise: PNG magic bytes in front of a JPEG', async () => {
    const jpeg = await jpegWithGps();
    const disguised = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), jpeg]);
    const decoded = await decodeImage(disguised);
    expect(decoded.type).toBeNull();
    expect(decoded.reasons.some((r) => r === 'undecodable' || r === 'type-mismatch')).toBe(true);
  });

  it('refuses a truncated file', async () => {
    const whole = await png(64, 64);
    expect((await decodeImage(whole.subarray(0, Math.floor(whole.length / 2)))).reasons).toEqual(['undecodable']);
  });
});

describe('stripMetadata', () => {
  it('drops EXIF and keeps the picture', async () => {
    const original = await jpegWithGps();
    const clean = await stripMetadata(original, 'image/jpeg');
    const meta = await sharp(clean).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    expect(meta.exif).toBeUndefined();
  });
});

describe('EmbeddedImageModerator', () => {
  const moderator = new EmbeddedImageModerator();
  const review = async (bytes: Buffer) => moderator.review(await decodeImage(bytes), bytes);

  it('passes a real picture and refuses tiny and blank ones', async () => {
    expect(await review(await png())).toEqual([]);
    expect(await review(await png(8, 64))).toEqual(['too-small']);
    expect(await review(await blankPng())).toEqual(['blank']);
  });
});

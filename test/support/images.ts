import sharp from 'sharp';

/** Pixels with detail (not one flat colour), so moderation sees a real picture. */
function patterned(width: number, height: number, frames = 1): Buffer {
  const raw = Buffer.alloc(width * height * frames * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 13) % 251;
  return raw;
}

/** A JPEG carrying EXIF with a camera make and a GPS position. */
export const jpegWithGps = () =>
  sharp(patterned(64, 48), { raw: { width: 64, height: 48, channels: 3 } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'TestCamMaker' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    })
    .toBuffer();

export const png = (width = 32, height = 32) =>
  sharp(patterned(width, height), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

export const blankPng = () =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();

/** An animated WebP with `frames` small frames. */
export const animatedWebp = (frames: number) =>
  sharp(patterned(32, 32, frames), { raw: { width: 32, height: 32 * frames, channels: 3, pageHeight: 32 } })
    .webp({ loop: 0 })
    .toBuffer();

/**
 * An "animation bomb": `frames` frames of `side`×`side` that differ only by a small square, so
 * the encoder stores each as a small patch (a tiny file) while decoding expands every frame.
 */
export function bigAnimation(side: number, frames: number): Promise<Buffer> {
  const frameBytes = side * side * 3;
  const raw = Buffer.alloc(frameBytes * frames, 90);
  for (let f = 0; f < frames; f++) {
    const at = (f * 7) % (side - 16);
    for (let y = 0; y < 16; y++)
      raw.fill(250, f * frameBytes + ((at + y) * side + at) * 3, f * frameBytes + ((at + y) * side + at + 16) * 3);
  }
  return sharp(raw, { raw: { width: side, height: side * frames, channels: 3, pageHeight: side } })
    .webp({ loop: 0, effort: 0, lossless: true })
    .toBuffer();
}

import type { Sharp, SharpOptions } from 'sharp';

/**
 * A sharp (libvips) pipeline over `input`, the library loaded on first use: it adds about 11 MB
 * of resident memory, and only image uploads and profile pictures need it, not every process
 * that imports their modules (measured with `process.memoryUsage().rss` around the require).
 */
export async function sharp(input: Buffer, options?: SharpOptions): Promise<Sharp> {
  const { default: pipeline } = await import('sharp');
  return pipeline(input, options);
}

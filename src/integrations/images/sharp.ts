import type sharpModule from 'sharp';

/**
 * sharp (libvips), loaded on first use: it adds about 11 MB of resident memory, and only image
 * uploads and profile pictures need it, not every process that imports their modules (measured
 * with `process.memoryUsage().rss` around the require). Later calls get the loaded module.
 */
export async function loadSharp(): Promise<typeof sharpModule> {
  return (await import('sharp')).default;
}

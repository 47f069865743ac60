// RSS growth of one decode through the API's image processor, for the worst stills the budget
// admits (40 MP): `node -r ts-node/register bench/images/one-decode.ts jpeg-rotated|jpeg|png`.
// The figures back docs/seller-listings.md ("Image processing"); results in bench/results/images.md.
import sharp from 'sharp';
import { ImageProcessor } from '../../src/integrations/images/processor';

const rssMiB = () => Math.round(process.memoryUsage().rss / 1048576);

async function main() {
  const kind = process.argv[2] ?? 'jpeg-rotated';
  // 7300 × 5470 = 39.9 MP, a gradient (compresses to ~2 MB, under the 10 MB upload cap).
  const [w, h] = [7300, 5470];
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i += 3) raw.fill((((i / 3) % w) + Math.floor(i / 3 / w)) % 256, i, i + 3);
  const source = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  const image =
    kind === 'png'
      ? await source.png().toBuffer()
      : await source
          .jpeg({ quality: 80 })
          .withMetadata({ orientation: kind === 'jpeg-rotated' ? 6 : 1 })
          .toBuffer();
  const images = new ImageProcessor();
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 20);
  const result = await images.clean(image);
  clearInterval(sampler);
  console.log(
    `| ${kind} | ${(image.length / 1048576).toFixed(1)} MB | ${result.reasons.join(', ') || 'accepted'} | ${before} | ${peak} | ${peak - before} |`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

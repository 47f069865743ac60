import { ImageProcessor, ImageQueueFull } from '../../src/integrations/images/processor';
import { DEFAULT_DECODE_LIMITS } from '../../src/integrations/images/decode';
import { bigAnimation, png } from '../support/images';

describe('ImageProcessor', () => {
  it('runs at most `concurrency` decodes at once, the rest in turn, and refuses beyond the queue', async () => {
    const images = new ImageProcessor({ limits: DEFAULT_DECODE_LIMITS, concurrency: 2, maxQueued: 3 });
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const job = () =>
      images.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    const jobs = Array.from({ length: 5 }, job);
    await expect(job()).rejects.toBeInstanceOf(ImageQueueFull);
    for (let done = 0; done < 5; done++) {
      await new Promise((r) => setTimeout(r, 10));
      releases.shift()!();
    }
    await Promise.all(jobs);
    expect(most).toBe(2);
    expect(images.active).toBe(0);
  });

  it('cleans a usable image and refuses an animation over the pixel budget from its header alone', async () => {
    const images = new ImageProcessor();
    const ok = await images.clean(await png());
    expect(ok).toMatchObject({ type: 'image/png', width: 32, height: 32, reasons: [] });
    expect(ok.clean).toBeInstanceOf(Buffer);
    const bomb = await images.clean(await bigAnimation(640, 100));
    expect(bomb).toMatchObject({ frames: 100, width: 640, height: 640, reasons: ['animation-too-large'], clean: null });
  }, 60_000);
});

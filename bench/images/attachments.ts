// API resident memory while 20 users attach a worst-case image to a message at the same time
// (issue 43, item 2). `node -r ts-node/register bench/images/attachments.ts [label]`; appends a
// run to bench/results/images.md, where it replaces the run before (kept in git). The API runs in its own process (bench/images/api.ts), so its
// RSS is read from /proc without the images this script generates. Each kind of image: 20 uploads
// (`POST /uploads`, `PUT` the bytes, all at once), then 20 attachments at once; RSS is sampled
// every 50 ms. A run whose API passes RSS_CEILING_MIB is stopped (it would take the machine).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import sharp from 'sharp';
import { rss } from '../support';

const ROOT = path.resolve(__dirname, '../..');
const RESULTS = path.join(ROOT, 'bench/results/images.md');
const TABLE_HEAD = '| run | image | parallel | RSS before | peak | growth | s | answers |\n|---|---|---|---|---|---|---|---|\n';
const PARALLEL = Number(process.env.IMAGE_BENCH_PARALLEL ?? 20);
const RSS_CEILING_MIB = Number(process.env.IMAGE_BENCH_CEILING_MIB ?? 9000);

/** The issue's animation bomb: 100 frames of 1400×1400 with detail, about 1–2 MB as WebP. */
async function animationBomb(): Promise<Buffer> {
  const side = 1400;
  const frames = 100;
  // One detailed picture with a square that moves from frame to frame: every frame differs (the
  // encoder would merge identical ones), yet the file stays small, as an attacker's would.
  const frame = Buffer.alloc(side * side * 3);
  for (let y = 0; y < side; y++)
    for (let x = 0; x < side; x++) frame.fill((x * 7 + y * 3) % 251, (y * side + x) * 3, (y * side + x) * 3 + 3);
  const raw = Buffer.alloc(side * side * 3 * frames);
  for (let f = 0; f < frames; f++) {
    frame.copy(raw, f * side * side * 3);
    for (let y = 0; y < 64; y++)
      raw.fill(255, ((f * side + f * 13 + y) * side + f * 13) * 3, ((f * side + f * 13 + y) * side + f * 13 + 64) * 3);
  }
  return sharp(raw, { raw: { width: side, height: side * frames, channels: 3, pageHeight: side } })
    .webp({ loop: 0, effort: 0, quality: 50 })
    .toBuffer();
}

/** A 36-megapixel PNG (6000×6000) that compresses well: a gradient, under the 10 MB upload cap. */
async function bigPng(): Promise<Buffer> {
  const side = 6000;
  const raw = Buffer.alloc(side * side * 3);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) raw.fill((x + y) % 256, (y * side + x) * 3, (y * side + x) * 3 + 3);
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

interface Person {
  bearer: string;
  conversationId: string;
  messageId: string;
}

async function main() {
  const label = process.argv[2] ?? 'run';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mts-image-bench-'));
  const child = spawn(process.execPath, ['-r', 'ts-node/register', 'bench/images/api.ts', String(PARALLEL * 2), dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const first = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`API exited ${code}`)));
  });
  const { baseUrl, pid, people } = JSON.parse(first) as { baseUrl: string; pid: number; people: Person[] };
  const lines: string[] = [];
  try {
    const kinds: Array<[string, Buffer, Person[]]> = [
      ['animated WebP, 100 frames of 1400×1400', await animationBomb(), people.slice(0, PARALLEL)],
      ['PNG 6000×6000 (36 MP)', await bigPng(), people.slice(PARALLEL, PARALLEL * 2)],
    ];
    for (const [kind, bytes, group] of kinds) {
      await new Promise((r) => setTimeout(r, 3000));
      const idle = rss(pid).now;
      let peak = idle;
      let stopped = false;
      const sampler = setInterval(() => {
        const now = rss(pid).now;
        peak = Math.max(peak, now);
        if (now > RSS_CEILING_MIB && !stopped) {
          stopped = true;
          child.kill('SIGKILL');
        }
      }, 50);
      const started = Date.now();
      const statuses: Record<string, number> = {};
      const count = (s: string) => (statuses[s] = (statuses[s] ?? 0) + 1);
      await Promise.all(
        group.map(async (p) => {
          try {
            const created = await fetch(`${baseUrl}/uploads`, { method: 'POST', headers: { Authorization: p.bearer } });
            const { id } = (await created.json()) as { id: string };
            const put = await fetch(`${baseUrl}/uploads/${id}`, {
              method: 'PUT',
              headers: { Authorization: p.bearer, 'Content-Type': 'application/octet-stream' },
              body: bytes,
            });
            count(`PUT ${put.status}`);
            if (put.status !== 200) return;
            const attached = await fetch(`${baseUrl}/conversations/${p.conversationId}/messages/${p.messageId}/attachments`, {
              method: 'PATCH',
              headers: { Authorization: p.bearer, 'Content-Type': 'application/json' },
              body: JSON.stringify({ id }),
            });
            count(`attach ${attached.status}`);
          } catch {
            count('connection lost');
          }
        }),
      );
      clearInterval(sampler);
      const seconds = (Date.now() - started) / 1000;
      const line =
        `| ${label} | ${kind} (${(bytes.length / 1048576).toFixed(1)} MB) | ${PARALLEL} | ${Math.round(idle)} | ${Math.round(peak)} | ` +
        `${Math.round(peak - idle)} | ${seconds.toFixed(1)} | ${Object.entries(statuses)
          .map(([s, n]) => `${n}× ${s}`)
          .join(', ')}${stopped ? `, API killed at ${RSS_CEILING_MIB} MiB` : ''} |`;
      console.log(line);
      lines.push(line);
      if (stopped) break;
    }
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  appendFileSync(
    RESULTS,
    `\n${new Date().toISOString()}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}:\n\n${TABLE_HEAD}${lines.join('\n')}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// What a kept Buffer (toKeptBytes) costs in native memory beyond its bytes, which neither V8's heap
// nor `external` counts (KEPT_BUFFER_NATIVE_BYTES). cache-weights.ts runs it compiled, in a process
// of its own under plain node: a process that has compiled TypeScript has freed memory in malloc's
// heap, which these Buffers would reuse, hiding what they cost. Prints the bytes per Buffer.
import { readFileSync } from 'node:fs';
import { toKeptBytes } from '../../src/json-bytes';

/** glibc's main heap ([heap] in /proc/self/smaps) as resident now, in bytes: where the main thread's mallocs live. */
function mallocHeapResident(): number {
  let inHeap = false;
  let kb = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
    else if (inHeap && line.startsWith('Rss:')) kb += Number(line.split(/\s+/)[1]);
  }
  return kb * 1024;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
// 50,000 Buffers of an item view's sizes (400–3,000 bytes), made in a row from one source, so
// malloc's heap grows by them alone; their bytes are written, so every page they use is resident.
const source = Buffer.alloc(3000, 0x20);
const sizes = Array.from({ length: 50_000 }, (_, n) => 400 + ((n * 7919) % 2600));
gc();
const before = mallocHeapResident();
const kept = sizes.map((size) => toKeptBytes(source.subarray(0, size)));
gc();
const grown = mallocHeapResident() - before - kept.reduce((sum, b) => sum + b.length, 0);
console.log((grown / kept.length).toFixed(0));

// Small helpers shared by the benchmark scripts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import ts from 'typescript';
import { Client } from 'pg';
import { SEARCH_ATTRIBUTE_ARGS } from '../src/domain/search-attributes';
import { devServerArgs, freePort } from '../test/support/dev-server';
import { TEMPORAL_CLI } from '../test/support/env';

const ROOT = path.join(__dirname, '..');

/**
 * Bench modules (paths from the repository root, e.g. `bench/catalog/server.ts`) compiled to
 * JavaScript at the same place under dist/ (`dist/bench/catalog/server.js`), where their imports
 * of `../../src/…` resolve to the compiled build: a benchmark target then runs as production
 * does, without ts-node in the process (which, besides its own memory, loads node:domain and with
 * it a slower EventEmitter). Returns the compiled paths; needs `npm run build` first.
 */
export function compileToDist(files: string[]): string[] {
  if (!existsSync(path.join(ROOT, 'dist/src/main.js'))) throw new Error('run `npm run build` first: the benchmark runs the compiled build');
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.build.json could not be read');
  return files.map((file) => {
    const out = path.join(ROOT, 'dist', file.replace(/\.ts$/, '.js'));
    const { outputText } = ts.transpileModule(readFileSync(path.join(ROOT, file), 'utf8'), {
      compilerOptions: config.options,
      fileName: file,
    });
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    return out;
  });
}

/** Runs one statement on the `postgres` database of the server `databaseUrl` points at (CREATE/DROP DATABASE). */
export async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/** Cumulative CPU ticks from /proc/stat (Linux): user, nice, system, idle, iowait, irq, softirq, steal. */
export function cpuTicks(): number[] {
  try {
    return readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  } catch {
    return [];
  }
}

/**
 * What the CPUs did between two `cpuTicks()` snapshots, e.g. "busy 71 %, iowait 3 %, steal 12 %".
 * Steal is time a virtual machine's host gave to someone else: on a shared host it, not the code,
 * can explain a slow run.
 */
export function cpuShare(before: number[], after: number[]): string {
  if (before.length < 8 || after.length < 8) return 'CPU shares unavailable';
  const d = after.map((v, i) => v - before[i]!);
  const total = d.reduce((a, b) => a + b, 0) || 1;
  const pct = (n: number) => `${Math.round((100 * n) / total)} %`;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = d as [number, number, number, number, number, number, number, number];
  return `busy ${pct(user + nice + system + irq + softirq)}, idle ${pct(idle)}, iowait ${pct(iowait)}, steal ${pct(steal)}`;
}

/** `processMemory` as {now, peak} (NaN once the process has exited), for sampling loops. */
export function rss(pid: number): { now: number; peak: number } {
  const m = processMemory(pid);
  return { now: m?.rss ?? NaN, peak: m?.peak ?? NaN };
}

/** A TCP port nothing listens on, kept from other processes' connections until a server binds it. */
export { freePort };

export const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** The benchmark's running children: ended when the benchmark ends, however it ends. */
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((child) => child.kill('SIGTERM')));

/**
 * Ends `child` when this process ends, on success or on a crash. A benchmark that died of an
 * error (say, its database dropped under it) used to leave its servers running and holding
 * their ports, and the next run then failed to listen. Every child a benchmark starts goes
 * through here.
 */
export function endsWithBench<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, resolved when the process has exited (at once if it already has). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A headless Temporal CLI dev server (in memory) on 127.0.0.1:`port` with every search attribute. */
export function spawnTemporalDevServer(port: number, extraArgs: string[] = []): ChildProcess {
  return endsWithBench(
    spawn(TEMPORAL_CLI, devServerArgs(port, ['--log-level', 'error', ...SEARCH_ATTRIBUTE_ARGS, ...extraArgs]), { stdio: 'ignore' }),
  );
}

/** Processes always told apart: this one and the Temporal dev server (named `temporal`). */
/**
 * A process's command name and the CPU time it has used so far (utime + stime, in clock ticks of
 * 1/100 s, all threads), from /proc/<pid>/stat (Linux); null once it has exited.
 */
export function procStat(pid: number): { comm: string; ticks: number } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state …": fields after the command name, which may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) };
}

const CPU_GROUPS = ['bench process', 'Temporal server'];

type ProcessTicks = { machine: number; processes: Map<number, { group: string; ticks: number }> };

/**
 * CPU time used so far (user + system, in clock ticks of 1/100 s, all threads) by this process,
 * by each process named `temporal` and by the processes in `named` (label → pid), by pid (Linux
 * /proc/<pid>/stat), beside the whole machine's busy time (/proc/stat). Two snapshots around a
 * phase tell which of them the phase's work cost (`cpuByProcess`, `cpuTicksByGroup`).
 */
export function processCpuTicks(named: Record<string, number> = {}): ProcessTicks {
  const labels = new Map(Object.entries(named).map(([label, pid]) => [pid, label]));
  const processes = new Map<number, { group: string; ticks: number }>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const stat = procStat(Number(pid));
    if (!stat) continue; // exited meanwhile
    const group =
      Number(pid) === process.pid ? 'bench process' : stat.comm === 'temporal' ? 'Temporal server' : (labels.get(Number(pid)) ?? null);
    if (group) processes.set(Number(pid), { group, ticks: stat.ticks });
  }
  return { machine: busyTicks(), processes };
}

/** The machine's busy CPU time so far (user, nice, system, irq, softirq), in clock ticks. */
export function busyTicks(): number {
  const [user, nice, system, , , irq, softirq] = cpuTicks();
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
}

/**
 * The clock ticks each group used between two snapshots, in the order: this process, the Temporal
 * server, the named processes; then `rest`, the machine's busy time less all of them (PostgreSQL's
 * backends come and go with the pool, so their own counters would lose the ones that exited).
 */
export function cpuTicksByGroup(before: ProcessTicks, after: ProcessTicks): { groups: Map<string, number>; rest: number } {
  const groups = new Map<string, number>(CPU_GROUPS.map((g) => [g, 0]));
  for (const [pid, now] of after.processes) {
    groups.set(now.group, (groups.get(now.group) ?? 0) + now.ticks - (before.processes.get(pid)?.ticks ?? 0));
  }
  const rest = after.machine - before.machine - [...groups.values()].reduce((a, b) => a + b, 0);
  return { groups, rest };
}

/** "bench process 0.93 cores, Temporal server 0.61, the rest (PostgreSQL …) 0.38" between two snapshots `seconds` apart. */
export function cpuByProcess(before: ProcessTicks, after: ProcessTicks, seconds: number): string {
  const { groups, rest } = cpuTicksByGroup(before, after);
  const cores = (ticks: number) => (ticks / 100 / seconds).toFixed(2);
  return `${[...groups].map(([g, ticks], i) => `${g} ${cores(ticks)}${i === 0 ? ' cores' : ''}`).join(', ')}, the rest (PostgreSQL …) ${cores(rest)}`;
}

/** Resident memory of a process (Linux /proc/<pid>/status), in MiB: now (VmRSS) and its peak (VmHWM); null once it has exited. */
export function processMemory(pid: number | 'self'): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * "RSS at end: API x MiB (peak y), worker z MiB (peak w)" for the processes named, a pid or
 * 'self' (the bench process, when it hosts the API or worker itself: label it so). Read it while
 * the processes still run, before stopping them; `note` ends the line (e.g. "no worker runs").
 */
export function rssAtEnd(processes: Array<[label: string, pid: number | 'self' | undefined]>, note = ''): string {
  const parts = processes.map(([label, pid]) => {
    const m = pid === undefined ? null : processMemory(pid);
    return `${label} ${m ? `${Math.round(m.rss)} MiB (peak ${Math.round(m.peak)})` : 'unavailable'}`;
  });
  return `RSS at end: ${parts.join(', ')}${note ? ` (${note})` : ''}.`;
}

/** The label of the bench process when the API and worker run inside it. */
export const IN_PROCESS = 'bench process (API and worker in-process)';

/** Resolves once `done()` holds, checking every 20 ms; throws after `timeoutMs` (30 min) naming `what`. */
export async function waitFor(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves once `url` answers at all (a server started beside the bench), polling every 200 ms. */
export async function waitForHttp(url: string, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${url} did not answer`);
}

import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './dev-server';

const run = promisify(execFile);

/** The machine's PostgreSQL binaries (Debian's layout); PG_BIN overrides. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * PostgreSQL refuses to run as root: as root the binaries run as the `postgres` OS user
 * (`runuser`), otherwise as whoever runs the tests.
 */
const asRoot = process.getuid?.() === 0;

async function pg(binary: string, args: string[]): Promise<string> {
  const command = path.join(PG_BIN, binary);
  const { stdout } = asRoot ? await run('runuser', ['-u', 'postgres', '--', command, ...args]) : await run(command, args);
  return stdout;
}

/**
 * A primary and a streaming replica of it, each a cluster of its own (initdb, then
 * `pg_basebackup -R`) in a temporary directory, on free ports, trust authentication on
 * loopback only. The primary keeps no data worth an fsync: the tests are about routing.
 */
export interface StreamingPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops applying WAL on the replica (`pg_wal_replay_pause()`): it keeps what it has, and lags from the next write. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Whether the replica has replayed everything the primary had when this was called. */
  caughtUp(): Promise<boolean>;
  /** A query on the replica itself, bypassing the API. */
  queryReplica<R>(sql: string, params?: unknown[]): Promise<R[]>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops both servers and removes their directory; safe to call after a failed start. */
  close(): Promise<void>;
}

export async function startStreamingPair(): Promise<StreamingPair> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mts-replica-'));
  if (asRoot) chownSync(root, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const started: string[] = [];
  const ctl = (dir: string, port: number, action: 'start' | 'stop') =>
    action === 'start'
      ? pg('pg_ctl', [
          '-D',
          dir,
          '-l',
          `${dir}.log`,
          '-w',
          '-t',
          '60',
          'start',
          '-o',
          `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`,
        ])
      : pg('pg_ctl', ['-D', dir, '-w', '-t', '60', 'stop', '-m', 'fast']);
  const close = async () => {
    for (const dir of started.splice(0).reverse()) await pg('pg_ctl', ['-D', dir, '-w', 'stop', '-m', 'immediate']).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  const query = async <R>(port: number, sql: string, params: unknown[] = []): Promise<R[]> => {
    const client = new Client({ connectionString: url(port) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as R[];
    } finally {
      await client.end();
    }
  };

  try {
    await pg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    // initdb's pg_hba.conf already trusts replication connections from 127.0.0.1; wal_level is `replica` by default.
    await ctl(primaryDir, primaryPort, 'start');
    started.push(primaryDir);
    await query(primaryPort, `ALTER SYSTEM SET fsync = off`);
    await query(primaryPort, `ALTER SYSTEM SET synchronous_commit = off`);
    await query(primaryPort, `SELECT pg_reload_conf()`);
    // -R writes primary_conninfo and standby.signal: the copy starts as a hot standby streaming from the primary.
    await pg('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    await ctl(replicaDir, replicaPort, 'start');
    started.push(replicaDir);
  } catch (err) {
    await close();
    throw err;
  }

  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    pauseReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_resume()');
    },
    caughtUp: async () => {
      const [primary] = await query<{ lsn: string }>(primaryPort, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const [replica] = await query<{ done: boolean }>(replicaPort, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
        primary!.lsn,
      ]);
      return replica!.done;
    },
    queryReplica: (sql, params) => query(replicaPort, sql, params),
    stopReplica: async () => {
      await ctl(replicaDir, replicaPort, 'stop');
      started.splice(started.indexOf(replicaDir), 1);
    },
    startReplica: async () => {
      await ctl(replicaDir, replicaPort, 'start');
      started.push(replicaDir);
    },
    close,
  };
}

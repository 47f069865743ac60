import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createDataSource } from './data-source';

/** A position in the write-ahead log, as a number (PostgreSQL writes it `16/B374D848`). */
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** What the last check found: `healthy` replicas serve reads; `lagging` and `down` ones do not. */
export const REPLICA_STATES = ['healthy', 'lagging', 'down'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

export interface ReplicaStatus {
  name: string;
  state: ReplicaState;
  /** How long the oldest change the replica has not replayed has existed; 0 when it has replayed everything. */
  lagMs: number;
}

export interface ReadRouterOptions {
  /** A replica further behind than this serves no reads until it catches up (DATABASE_REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** How often replay positions are read (DATABASE_REPLICA_CHECK_MS): the health check is periodic, never per request. */
  checkEveryMs: number;
}

interface Replica {
  name: string;
  /** The reads' pool. */
  db: DataSource;
  /**
   * One connection of its own for the health check and position probes: a check waiting behind
   * a pool saturated by reads would time out and take a busy replica for a dead one.
   */
  check: Pool;
  state: ReplicaState;
  lagMs: number;
  /** The last replay position read from it: everything up to it is visible there. */
  replayed: Lsn;
  /** A replay position read in flight (see `probe`). */
  probing: Promise<void> | undefined;
  /** When the last probe began: reads behind the fence ask again at most every `PROBE_EVERY_MS`. */
  probedAt: number;
  /** Its driver as prepared statements are given it (`driverOrPrimary`), made once per pool. */
  preparedDriver: { pool: Pool; driver: unknown } | undefined;
}

/**
 * Where a Discover cache refill reads: a database that has replayed every change the API has
 * been notified of to what the refill reads, so what a change made a cache forget is never
 * refilled from before the change. Without replicas each is the primary.
 */
export interface FreshReads {
  /** Every change notified so far: answers that depend on every item (catalog search by price). */
  readonly all: DataSource;
  /** Every change to the catalog itself notified so far: rankings by relevance or name, slugs. */
  readonly catalog: DataSource;
  /** Every change notified so far to these items: their views, listings and price guides. */
  items(urns: readonly string[]): DataSource;
}

/** Notified changes whose position has not been read yet: the reads they concern go to the primary. */
interface Unplaced {
  /** Changes may have gone unheard (a reset): every read is concerned. */
  everything: boolean;
  catalog: boolean;
  urns: Set<string>;
}

const nothingUnplaced = (): Unplaced => ({ everything: false, catalog: false, urns: new Set() });
const isEmpty = (u: Unplaced) => !u.everything && !u.catalog && u.urns.size === 0;

/** The primary's insert position at one moment: what a replica must have replayed to be as fresh as the primary was then. */
interface Sample {
  at: number;
  lsn: Lsn;
}

/** The `application_name` replica sessions carry, so `pg_stat_activity` on a replica shows the API's reads. */
export const REPLICA_APPLICATION_NAME = 'marketplace-api-replica';
const CHECK_APPLICATION_NAME = 'marketplace-api-replica-check';

/** Connections per replica, as the primary's pool: a replica takes the reads the primary would have. */
const REPLICA_POOL_SIZE = 10;

/**
 * A replica that does not accept a connection within this is taken as down (its reads retry on
 * the primary): without it a replica whose host vanished would hold reads until TCP gives up.
 */
const REPLICA_CONNECT_TIMEOUT_MS = 1000;

/** The API's router over the primary and DATABASE_REPLICA_URLS; `start()` it, `close()` it before the primary. */
export function createReadRouter(config: Config, primary: DataSource, log: Logger): ReadRouter {
  const replicas = config.replicas.urls.map((url) => {
    const { hostname, port, pathname } = new URL(url);
    return {
      // Host, port and database only: never the password.
      name: `${hostname}:${port || 5432}${pathname}`,
      db: createDataSource({
        url,
        poolSize: REPLICA_POOL_SIZE,
        applicationName: REPLICA_APPLICATION_NAME,
        connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
      }),
      check: new Pool({
        connectionString: url,
        max: 1,
        application_name: CHECK_APPLICATION_NAME,
        connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
      }),
    };
  });
  return new ReadRouter(primary, replicas, { maxLagMs: config.replicas.maxLagMs, checkEveryMs: config.replicas.checkEveryMs }, log);
}

/**
 * While a replica is behind the fence, reads that pass it over ask its position again, at most
 * this often: asking on every read would keep one probe per round trip running for as long as the
 * replica trails a stream of writes, and a replica that has caught up is back within this.
 */
const PROBE_EVERY_MS = 20;

/**
 * Items whose last change's position is remembered: beyond this, the oldest are forgotten by
 * raising the position every other item's reads require to the newest fence (`itemFloor`), which
 * errs towards the primary. Under a steady stream of writes only the changes the slowest replica
 * has not replayed are kept, a few hundred at most.
 */
const ITEM_FENCES_KEPT = 100_000;

/** Primary positions are kept this long; a replica behind all of them is at least this far behind. */
const SAMPLES_KEPT_MS = 60_000;

/**
 * The primary's insert position, not its write position: a commit whose record is inserted is
 * visible, and with `synchronous_commit = off` it may not be written yet. Replaying up to the
 * insert position therefore covers every commit visible on the primary when it was read. (On a
 * primary idle exactly at a WAL page boundary the insert position counts the next page's header,
 * which no replica replays until the next record: it errs towards reading the primary.)
 */
const PRIMARY_POSITION = 'SELECT pg_current_wal_insert_lsn()::text AS lsn';

/**
 * Which database a read goes to: the primary, or one of the streaming replicas of
 * DATABASE_REPLICA_URLS (docs/replicas.md).
 *
 * - `lagging`: reads that may be up to `maxLagMs` old (profiles, reviews, price history, the price
 *   guide) go to a healthy replica, round-robin, else to the primary.
 * - `fresh`: reads that fill a cache kept until the database notifies a change (Discover) go to a
 *   healthy replica that has replayed every change notified so far to what they read (`changed`):
 *   every change, the catalog's, or the items' (`FreshReads`); else to the primary, so a refill
 *   after a change never caches what the change replaced, while refills of items no recent
 *   change touched still use a replica under a steady stream of writes.
 * - `caughtUp()`: a replica that has replayed everything committed before the call, else the
 *   primary: for a caller who must see their own last write (seller listing search).
 *
 * A check every `checkEveryMs` reads the primary's position and each replica's replay position:
 * a replica that fails to answer is `down`, one whose oldest unreplayed change is older than
 * `maxLagMs` is `lagging`, and both are skipped until a later check finds them healthy. A read
 * on a replica that fails for want of a connection is retried on the primary and the replica
 * marked down at once, so a replica going away costs no request an error.
 */
export class ReadRouter {
  private readonly replicas: Replica[];
  private samples: Sample[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private closed = false;
  /** Every notified change is at or before this position. */
  private fence: Lsn = 0n;
  /** Every notified change to the catalog itself is at or before this position. */
  private catalogFence: Lsn = 0n;
  /** Item URN → the position of its last notified change, for changes not known to be on every replica. */
  private readonly itemFences = new Map<string, Lsn>();
  /** Every notified change to an item not in `itemFences` is at or before this position. */
  private itemFloor: Lsn = 0n;
  /** Changes notified since the position being read was asked for, and those it is being read for. */
  private unplaced = nothingUnplaced();
  private placing = nothingUnplaced();
  private fenceReading = false;

  /** Reads routed so far, by database (`primary` or a replica's name): what the metrics export. */
  private readonly routedCounts = new Map<string, number>();

  /** Reads that may lag by up to `maxLagMs`. */
  readonly lagging: DataSource;
  /** Reads that must reflect the changes notified so far to what they read (cache refills). */
  readonly fresh: FreshReads;

  constructor(
    readonly primary: DataSource,
    replicas: Array<{ name: string; db: DataSource; check: Pool }>,
    private readonly options: ReadRouterOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.replicas = replicas.map((r) => ({
      ...r,
      state: 'down',
      lagMs: 0,
      replayed: 0n,
      probing: undefined,
      probedAt: 0,
      preparedDriver: undefined,
    }));
    for (const r of this.replicas) r.check.on('error', () => undefined); // an idle check connection lost: the next check reconnects
    this.lagging = this.routing(() => this.pick(() => true));
    const past = (need: Lsn | undefined) => (need === undefined ? undefined : this.pick((r) => r.replayed >= need, true));
    const all = this.routing(() => past(this.fenceReading ? undefined : this.fence));
    const catalog = this.routing(() => past(this.unplacedCatalog() ? undefined : this.catalogFence));
    this.fresh = {
      all,
      catalog,
      items: (urns) => (this.replicas.length === 0 ? this.primary : this.routing(() => past(this.itemsFence(urns)))),
    };
  }

  /** How many reads went to each database (`primary` or a replica's name) since start. */
  routed(): ReadonlyMap<string, number> {
    return this.routedCounts;
  }

  /** Connects to the replicas and checks them every `checkEveryMs`; until a check finds one healthy, reads go to the primary. */
  start(): void {
    if (this.replicas.length === 0) return;
    const tick = () => {
      this.timer = setTimeout(() => void this.check().finally(() => !this.closed && tick()), this.options.checkEveryMs);
    };
    void this.check().finally(() => !this.closed && tick());
  }

  /** The state of each replica as the last check (or a failed read since) left it. */
  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagMs }) => ({ name, state, lagMs }));
  }

  /**
   * A change was committed on the primary (the database's change notification), or, with no
   * change given, changes may have gone unheard (the listener reconnected): the reads it concerns
   * go to the primary until a replica has replayed it. Its position is read at once; any position
   * read after the notification arrived is at or past the change's commit.
   */
  changed(change?: { urns: readonly string[]; catalog: boolean }): void {
    // With no replica every read is on the primary: there is nothing to fence.
    if (this.replicas.length === 0) return;
    if (!change) this.unplaced.everything = true;
    else {
      if (change.catalog) this.unplaced.catalog = true;
      for (const urn of change.urns) this.unplaced.urns.add(urn);
    }
    if (!this.fenceReading) void this.readFence();
  }

  /** A database that has everything committed before this call: a replica that has replayed it, else the primary. */
  async caughtUp(): Promise<DataSource> {
    if (!this.replicas.some((r) => r.state === 'healthy')) return this.primary;
    const target = await this.primaryPosition();
    const ready = this.pick((r) => r.replayed >= target, false);
    if (ready) return this.routing(() => ready);
    // Positions known from the last check are older than the write: ask the healthy replicas now.
    await Promise.all(this.replicas.filter((r) => r.state === 'healthy').map((r) => this.probe(r)));
    const replica = this.pick((r) => r.replayed >= target, false);
    return replica ? this.routing(() => replica) : this.primary;
  }

  /** Checks once now: what the timer does. Exposed so a caller that changed a replica need not wait for the next tick. */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.checking;
    await Promise.all(this.replicas.flatMap((r) => [r.check.end(), r.db.isInitialized ? r.db.destroy() : undefined]));
  }

  private async checkAll(): Promise<void> {
    let position: Lsn;
    try {
      position = await this.primaryPosition();
    } catch (err) {
      // Without the primary's position no lag can be measured; states stay as they were.
      this.log.warn({ err }, 'replica check: the primary did not answer');
      return;
    }
    const at = this.now();
    this.samples.push({ at, lsn: position });
    this.samples = this.samples.filter((s) => s.at >= at - SAMPLES_KEPT_MS);
    await Promise.all(this.replicas.map((r) => this.checkReplica(r)));
    this.forgetReplayedFences();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    const was = replica.state;
    try {
      await withDeadline(this.connectAndReadReplay(replica), Math.max(this.options.checkEveryMs, REPLICA_CONNECT_TIMEOUT_MS));
      replica.lagMs = this.lagOf(replica.replayed);
      replica.state = replica.lagMs > this.options.maxLagMs ? 'lagging' : 'healthy';
    } catch (err) {
      replica.state = 'down';
      if (was !== 'down') this.log.warn({ err, replica: replica.name }, 'replica down: its reads go to the primary');
      return;
    }
    if (replica.state !== was) this.log.info({ replica: replica.name, state: replica.state, lagMs: replica.lagMs }, 'replica state');
  }

  /**
   * How long the oldest change the replica lacks has existed: the age of the first primary sample
   * past its replay position. Measured on the primary's clock alone (the replica's replay
   * timestamp would compare two clocks, and grows on an idle primary that has nothing to send).
   */
  private lagOf(replayed: Lsn): number {
    const first = this.samples.find((s) => s.lsn > replayed);
    return first ? this.now() - first.at : 0;
  }

  private async connectAndReadReplay(replica: Replica): Promise<void> {
    if (!replica.db.isInitialized) {
      await replica.db.initialize();
      this.connectOrPrimary(replica);
    }
    await this.readReplay(replica);
  }

  /**
   * Every use of the replica's pool (queries, query builders, repositories) takes its connection
   * through the driver's `obtainMasterConnection`: when the replica refuses it, the replica is
   * marked down and the connection (with its release) is taken from the primary's pool instead,
   * so a read that begins after the replica went away is served, whatever API it reads with.
   */
  private connectOrPrimary(replica: Replica): void {
    const driver = replica.db.driver as PostgresDriver;
    const own = driver.obtainMasterConnection.bind(driver);
    driver.obtainMasterConnection = async () => {
      try {
        return await own();
      } catch (err) {
        if (!unreachable(err)) throw err;
        this.markDown(replica, err);
        return (this.primary.driver as PostgresDriver).obtainMasterConnection();
      }
    };
  }

  private async readReplay(replica: Replica): Promise<void> {
    const { rows } = await replica.check.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
    const row = rows[0];
    // NULL: not a standby (or not replaying yet). Reading from it could miss anything.
    if (!row?.lsn) throw new Error(`${replica.name} is not a streaming replica (pg_last_wal_replay_lsn() is NULL)`);
    const lsn = parseLsn(row.lsn);
    if (lsn > replica.replayed) replica.replayed = lsn;
  }

  /** Reads a replica's replay position now; concurrent callers share one read. */
  private probe(replica: Replica): Promise<void> {
    if (!replica.probing) replica.probedAt = this.now();
    replica.probing ??= this.readReplay(replica)
      .catch((err) => this.markDown(replica, err))
      .finally(() => (replica.probing = undefined));
    return replica.probing;
  }

  private async primaryPosition(): Promise<Lsn> {
    const [row]: Array<{ lsn: string }> = await this.primary.query(PRIMARY_POSITION);
    return parseLsn(row!.lsn);
  }

  private async readFence(): Promise<void> {
    this.fenceReading = true;
    // Notifications that arrive while a position is read may have committed after it: read again for them.
    while (!isEmpty(this.unplaced) && !this.closed) {
      this.placing = this.unplaced;
      this.unplaced = nothingUnplaced();
      let lsn: Lsn | undefined;
      while (lsn === undefined && !this.closed) {
        try {
          lsn = await this.primaryPosition();
        } catch {
          // The primary did not answer; the reads concerned stay on it (and fail with it) until it does.
          await new Promise((resolve) => setTimeout(resolve, this.options.checkEveryMs));
        }
      }
      if (lsn !== undefined) this.place(this.placing, lsn);
    }
    this.placing = nothingUnplaced();
    this.fenceReading = false;
    // A fresh read that found no replica past its fence asks them again rather than wait for the next check.
    for (const r of this.replicas) if (r.state === 'healthy' && r.replayed < this.fence) void this.probe(r);
  }

  /** The changes of `placed` are all at or before `lsn`. */
  private place(placed: Unplaced, lsn: Lsn): void {
    if (lsn > this.fence) this.fence = lsn;
    if ((placed.catalog || placed.everything) && lsn > this.catalogFence) this.catalogFence = lsn;
    if (placed.everything || this.itemFences.size + placed.urns.size > ITEM_FENCES_KEPT) {
      // Every item may have changed by now: none is exempt from the newest position.
      this.itemFences.clear();
      this.itemFloor = this.fence;
    }
    if (!placed.everything) for (const urn of placed.urns) this.itemFences.set(urn, lsn);
  }

  /** Whether a change to the catalog itself has been notified and its position not yet read. */
  private unplacedCatalog(): boolean {
    return [this.unplaced, this.placing].some((u) => u.everything || u.catalog);
  }

  /** The position a replica must have replayed to serve reads of `urns`; undefined while one of their changes is unplaced. */
  private itemsFence(urns: readonly string[]): Lsn | undefined {
    if (this.unplaced.everything || this.placing.everything) return undefined;
    let need = this.itemFloor;
    for (const urn of urns) {
      if (this.unplaced.urns.has(urn) || this.placing.urns.has(urn)) return undefined;
      const lsn = this.itemFences.get(urn);
      if (lsn !== undefined && lsn > need) need = lsn;
    }
    return need;
  }

  /**
   * Forgets the item fences every healthy replica has replayed: they constrain none of their
   * reads any more. The floor rises to that position, so a replica that comes back from behind
   * it serves no item whose fence was forgotten before it has replayed that far.
   */
  private forgetReplayedFences(): void {
    const healthy = this.replicas.filter((r) => r.state === 'healthy');
    if (this.itemFences.size === 0 || healthy.length === 0) return;
    const replayedByAll = healthy.reduce((least, r) => (r.replayed < least ? r.replayed : least), this.fence);
    for (const [urn, lsn] of this.itemFences) if (lsn <= replayedByAll) this.itemFences.delete(urn);
    if (replayedByAll > this.itemFloor) this.itemFloor = replayedByAll;
  }

  /**
   * The next healthy replica (round-robin) that `fits`, or undefined. With `refresh`, healthy
   * replicas that do not fit are asked their position again, so the reads after this one can
   * go to them as soon as they have caught up.
   */
  private pick(fits: (replica: Replica) => boolean, refresh = false): Replica | undefined {
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const replica = this.replicas[(this.next + i) % n]!;
      if (replica.state !== 'healthy') continue;
      if (fits(replica)) {
        this.next = (this.next + i + 1) % n;
        return replica;
      }
      if (refresh && this.now() - replica.probedAt >= PROBE_EVERY_MS) void this.probe(replica);
    }
    return undefined;
  }

  private markDown(replica: Replica, err: unknown): void {
    if (replica.state === 'down') return;
    replica.state = 'down';
    this.log.warn({ err, replica: replica.name }, 'replica down: its reads go to the primary');
  }

  /**
   * The replica's driver, as a prepared statement sees it (src/db/prepared.ts runs those on the
   * driver's pool, not through a method of the DataSource): a statement whose replica connection
   * is refused or breaks is retried on the primary's pool, and the replica marked down, as a
   * `query` is.
   */
  private driverOrPrimary(replica: Replica): unknown {
    const driver = replica.db.driver as unknown as PooledDriver;
    const pool = driver.master;
    if (replica.preparedDriver?.pool === pool) return replica.preparedDriver.driver;
    const query = async (...args: unknown[]) => {
      try {
        return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (err) {
        if (!unreachable(err)) throw err;
        this.markDown(replica, err);
        const primaryPool = (this.primary.driver as unknown as PooledDriver).master;
        return (primaryPool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      }
    };
    const master = new Proxy(pool, { get: (p, key) => (key === 'query' ? query : Reflect.get(p, key, p)) });
    replica.preparedDriver = { pool, driver: new Proxy(driver, { get: (d, key) => (key === 'master' ? master : Reflect.get(d, key, d)) }) };
    return replica.preparedDriver.driver;
  }

  /**
   * A DataSource whose every use goes to the database `choose` names at that moment (the primary
   * when it names none). A `query` or `transaction` (reads only: these DataSources are never
   * written through) whose replica connection breaks under it — the replica shut down while the
   * connection sat in the pool — is retried on the primary; a connection the replica refuses is
   * taken from the primary already (`connectOrPrimary`).
   */
  private routing(choose: () => Replica | undefined): DataSource {
    return new Proxy(this.primary, {
      get: (primary, property) => {
        const replica = choose();
        const target = replica?.db ?? primary;
        const value: unknown = replica && property === 'driver' ? this.driverOrPrimary(replica) : Reflect.get(target, property, target);
        // A read is a method call, or a prepared statement taking the driver's pool (src/db/prepared.ts).
        const read = typeof value === 'function' || property === 'driver';
        if (read) {
          const name = replica?.name ?? 'primary';
          this.routedCounts.set(name, (this.routedCounts.get(name) ?? 0) + 1);
        }
        if (typeof value !== 'function') return value;
        if (!replica || (property !== 'query' && property !== 'transaction')) return value.bind(target);
        return async (...args: unknown[]) => {
          try {
            return await value.apply(target, args);
          } catch (err) {
            if (!unreachable(err)) throw err;
            this.markDown(replica, err);
            return (Reflect.get(primary, property, primary) as (...a: unknown[]) => Promise<unknown>).apply(primary, args);
          }
        };
      },
    });
  }
}

/** What a prepared statement reads through (src/db/prepared.ts): the driver's pool. */
type PooledDriver = { master: Pool };

/**
 * Whether a failure is the replica's absence rather than the statement's: no connection
 * (refused, reset, timed out), or the server shutting down or unable to serve (SQLSTATE class
 * 08, 57P01–57P03). A statement's own error would fail on the primary just the same.
 */
function unreachable(err: unknown): boolean {
  const e = ((err as { driverError?: unknown }).driverError ?? err) as { code?: string; message?: string };
  if (typeof e.code === 'string' && (e.code.startsWith('08') || /^57P0[123]$/.test(e.code) || /^E[A-Z]+$/.test(e.code))) return true;
  return /Connection terminated|connection timeout|Connection ended|timeout exceeded when trying to connect/i.test(e.message ?? '');
}

/** `work`, or a failure once `ms` have passed: a replica whose host stopped answering must not hold the check. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

import { Client } from 'pg';
import type { Logger } from '../../logger';

/** Items whose Discover answers changed; `catalog` when the catalog item itself did (name, set, rarity…). */
export interface ItemChange {
  urns: string[];
  catalog: boolean;
}

/** What a Discover cache needs to hear: which items changed, and when it may have missed some. */
export interface ItemChanges {
  /** `listener` hears of every change after it committed. */
  onChange(listener: (change: ItemChange) => void): void;
  /**
   * `listener` runs whenever changes may have gone unheard: the connection was lost, or it was
   * (re-)established after answers may already have been read. Everything cached must go.
   */
  onReset(listener: () => void): void;
  /** Whether changes are being heard right now: what is kept can then live until it changes. */
  readonly listening: boolean;
}

/** The channels the database notifies on (migration 1733510000000). */
const CHANNELS = { items: 'discover_items', catalog: 'discover_catalog' };
const RECONNECT_MS = { first: 250, max: 10_000 };

/**
 * LISTENs for Discover's channels on a connection of its own and tells the Discover caches which
 * items changed. While the connection is down the caches are told to drop everything once, and
 * answers fall back to their TTL until it is back (then everything is dropped again, since a
 * change may have been missed in between). One per API process.
 */
export class DiscoverChangeListener implements ItemChanges {
  private readonly changeListeners: Array<(change: ItemChange) => void> = [];
  private readonly resetListeners: Array<() => void> = [];
  private client: Client | undefined;
  private retryMs = RECONNECT_MS.first;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
  ) {}

  onChange(listener: (change: ItemChange) => void): void {
    this.changeListeners.push(listener);
  }

  onReset(listener: () => void): void {
    this.resetListeners.push(listener);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Connects in the background; the caches work meanwhile, bounded by their TTL. */
  start(): void {
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'discover-changes' });
    client.on('notification', (message) => {
      if (message.payload) this.changed({ urns: message.payload.split(','), catalog: message.channel === CHANNELS.catalog });
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of Object.values(CHANNELS)) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_MS.first;
    // Answers read before LISTEN took effect may predate a change nobody heard about.
    this.reset();
  }

  private lost(client: Client, err?: unknown): void {
    if (this.closed || (this.client !== client && this.client !== undefined)) return;
    if (this.client === client) {
      this.client = undefined;
      this.log.warn({ err }, 'Discover change notifications lost; cached answers fall back to DISCOVER_CACHE_MS until they are back');
      this.reset();
    }
    void client.end().catch(() => undefined);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) void this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MS.max);
  }

  private changed(change: ItemChange): void {
    for (const listener of this.changeListeners) listener(change);
  }

  private reset(): void {
    for (const listener of this.resetListeners) listener();
  }
}

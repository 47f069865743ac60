import { hkdfSync } from 'node:crypto';
import path from 'node:path';
import Joi from './joi';

/**
 * The one place that reads the environment. Everything else receives a typed `Config`.
 * Validated at start-up so a bad deployment fails fast with a readable message instead of
 * misbehaving later.
 */
export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicBaseUrl: string;
  logLevel: string;
  /** On SIGTERM, how long requests in flight (API) and running activities (worker) may take to finish. */
  shutdownGraceMs: number;
  databaseUrl: string;
  /** Streaming replicas the API reads Discover, profiles, reviews and price data from (docs/replicas.md). */
  replicas: {
    urls: string[];
    /** A replica further behind the primary than this is skipped until it catches up. */
    maxLagMs: number;
    /** How often each replica's replay position and lag are checked. */
    checkEveryMs: number;
  };
  /** Where each process serves `GET /metrics` (docs/operations.md); port 0 turns it off. */
  metrics: {
    host: string;
    apiPort: number;
    workerPort: number;
    /** Loopback port of the Temporal SDK's Prometheus exporter, which the worker's /metrics includes. */
    sdkPort: number;
  };
  /** OpenTelemetry traces (docs/operations.md, "Tracing"); the SDK reads its other OTEL_* variables itself. */
  tracing: TracingConfig;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    tls: boolean;
    /** AES-256-GCM keys for workflow payloads; the first encrypts, all decrypt (docs/operations.md). */
    payloadKeys: { id: string; key: Buffer }[];
    /** The codec endpoint the Web UI decrypts payloads through; port 0 turns it off. */
    codec: { host: string; port: number; corsOrigins: string[] };
    /** Workflows a worker keeps in memory between tasks (docs/operations.md, "Worker memory"). */
    maxCachedWorkflows: number;
    /** Activities a worker runs at once (docs/operations.md, "Worker memory"). */
    maxConcurrentActivities: number;
  };
  auth: {
    jwtSecret: Uint8Array;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    /** log2 of the scrypt cost parameter N. */
    scryptLogN: number;
    /** Failed sign-ins per account name within `lockSeconds` before sign-in pauses for `lockSeconds`. */
    signInMaxFailures: number;
    signInLockSeconds: number;
  };
  emailChange: {
    codeTtlSeconds: number;
    maxAttempts: number;
  };
  email: {
    from: string;
    smtpUrl: string | undefined;
  };
  http: {
    jsonBodyLimit: string;
    validateResponses: boolean;
    /** Browser origins allowed to call the API cross-origin (docs/conventions.md, "CORS"). */
    cors: CorsConfig;
  };
  webhooks: WebhookConfig;
  starts: StartDispatchConfig;
  uploads: {
    /** Local-disk image storage (the embedded default). */
    dir: string;
    maxBytes: number;
    /** Unattached uploads (drafts included) one user may hold; the next `POST /uploads` is 409. */
    maxPending: number;
    /** Bytes of unattached uploads one user may hold; a `PUT` beyond it is 409. */
    maxPendingBytes: number;
    /** Uploads one user may create per minute; beyond it 429. */
    perMinute: number;
    /** Unattached uploads older than this are deleted by the `upload-collector` Schedule. */
    collectAfterMs: number;
    /** How often the collector runs. */
    collectEveryMs: number;
    /** Image decodes one API process runs at once (docs/seller-listings.md, "Image processing"). */
    decodeConcurrency: number;
    /** Decodes that may wait for a slot; beyond it 503. */
    decodeQueue: number;
  };
  imports: {
    maxBytes: number;
    /** Lines after the header an import may have. */
    maxRows: number;
    batchSize: number;
  };
  search: {
    /** How long seller search results may lag stock moved by checkouts (0: no cache). */
    cacheTtlMs: number;
  };
  discover: {
    /**
     * The longest Discover keeps an answer in memory (0: no cache). Changes the database notifies
     * drop it at once; this bounds the rest, and everything while notifications are down.
     */
    cacheTtlMs: number;
    /** The memory budget of the item cache bulk lookup and catalog search share, in bytes. */
    itemCacheBytes: number;
    /** The memory budget of the items' listings kept for listing search, in bytes. */
    listingCacheBytes: number;
  };
  checkout: {
    /** How long a checkout holds stock before an unpaid session expires and releases it. */
    holdSeconds: number;
    /** How often the expiry sweep releases the holds of run-out sessions: their most lag. */
    expirySweepMs: number;
  };
  orders: {
    /** After shipping, an order counts as received automatically once this has passed. */
    autoReceiptSeconds: number;
    /** Once every shipment of an order is delivered, it counts as received after this, if sooner. */
    deliveredReceiptSeconds: number;
    /** The seller ships within this long of the order (shown as `dueAt`; docs/checkout-orders.md "Next actions"). */
    dispatchSeconds: number;
    /** The seller answers a buyer's cancellation request within this long (shown as `dueAt`). */
    cancellationAnswerSeconds: number;
  };
  tracking: {
    /** First wait between two polls of the carrier; it doubles up to `pollMaxSeconds`. */
    pollSeconds: number;
    pollMaxSeconds: number;
    /** Tracking stops after this long without a delivery (the auto-receipt still runs). */
    giveUpSeconds: number;
    /** The simulator carrier's time in each status. */
    simulatorStepSeconds: number;
    /** Who tracks parcels: the embedded simulator, or EasyPost's tracking API (docs/sellers-operators.md, "Tracking"). */
    carrierProvider: 'simulator' | 'easypost';
    easypostApiKey?: string;
    easypostUrl: string;
  };
  money: {
    /** The platform's seller fee, in basis points of each order's total (500 = 5%), rounded down. */
    sellerFeeBps: number;
    /** After an order is received, its seller share waits this long before it becomes available. */
    fundsHoldSeconds: number;
    /** How often the payout Schedule runs (aligned to the Unix epoch: daily = at 00:00 UTC). */
    payoutIntervalMs: number;
    /** Days from a payout's creation to its expected arrival. */
    payoutArrivalDays: number;
    /** How long a payout stays in transit before the bank (simulator) answers. */
    payoutTransitSeconds: number;
    /** How often the money reconciler's Schedule looks for money not settled in time. */
    reconcileEveryMs: number;
    /** How far past its due time money must be to count as stuck (docs/money.md "Reconciler"). */
    stuckAfterSeconds: number;
  };
  reviews: {
    /** After a purchase completes, parties have this long to review before defaults are written. */
    windowSeconds: number;
  };
  retention: {
    /** Outbox, start and webhook attempt rows older than this are pruned (docs/operations.md). */
    olderThanMs: number;
    /** How often the retention Schedule runs. */
    everyMs: number;
  };
  cases: {
    /** An OPEN or REMEDIATION case unresolved this long escalates automatically (spec: 7 days). */
    autoEscalateSeconds: number;
    /** Operators decide an ESCALATED case within this long of its escalation (shown as `dueAt`). */
    decisionSeconds: number;
  };
  addressLookup: {
    /** `embedded` (the bundled gazetteer) or `loqate` (needs `key`). */
    provider: 'embedded' | 'loqate';
    loqateKey: string | undefined;
    loqateUrl: string;
    /** How long a retrieved address may back a saved address's `lookupId`. */
    retrieveTtlSeconds: number;
  };
  billingPortal: {
    /** Lifetime of a signed billing portal link. */
    linkTtlSeconds: number;
  };
  conversations: {
    /** Quiet time after a message before its recipient's e-mail is decided (a burst becomes one e-mail). */
    notifyGraceSeconds: number;
    /** Longest a burst can postpone that decision. */
    notifyMaxDelaySeconds: number;
    /** A recipient without an authenticated request for this long is inactive, and gets the e-mail. */
    inactiveSeconds: number;
  };
  /** Price alerts, the watchlist and their notifications (docs/alerts.md). */
  alerts: {
    /** At most one digest e-mail per user per this long. */
    digestIntervalMs: number;
  };
  /** The basket optimizer of wants lists (docs/wants.md). */
  wants: {
    /** The optimizer's own task queue, served by a Worker of its own in each worker process. */
    optimizerTaskQueue: string;
    /** Optimizations one worker process solves at once (each uses one core). */
    optimizerConcurrency: number;
    /** How long POST …/optimizations waits for the answer before answering 202. */
    waitMs: number;
    /** The solver's time limit when the request names none. */
    defaultTimeLimitMs: number;
  };
  /** The price guide (docs/price-guide.md). */
  priceGuide: {
    /** How often the `price-guide-rollup` Schedule rolls closed days up. */
    rollupEveryMs: number;
  };
  /** Offers on listings (docs/offers.md). */
  offers: {
    /** An offer or counter unanswered this long expires (48 h). */
    expirySeconds: number;
    /** An accepted offer unpaid this long lapses and its hold is released (48 h). */
    paySeconds: number;
    /** How many offers one buyer may make on one listing within `windowSeconds`. */
    maxPerWindow: number;
    windowSeconds: number;
  };
}

/**
 * CORS_ALLOWED_ORIGINS: exact origins (`https://app.example`), none unless configured. In
 * development, unset means any loopback origin (`http://localhost:<any port>`, 127.0.0.1, [::1]),
 * so a single-page app on a dev server reaches `npm start`'s API without configuration.
 */
export interface CorsConfig {
  allowedOrigins: string[];
  allowLoopback: boolean;
}

/** Webhook delivery settings (docs/webhooks.md). Durations in milliseconds. */
export interface WebhookConfig {
  /** AES-256-GCM key under which endpoint signing secrets are stored. */
  secretKey: Buffer;
  /** Lets endpoints use http and loopback/private addresses (local receivers, tests). */
  allowPrivateUrls: boolean;
  /** Waits before the 2nd, 3rd, … attempt; its length is the number of retries. */
  retryScheduleMs: number[];
  /** Deadline of one HTTP attempt (connect to last byte). */
  attemptTimeoutMs: number;
  /** An endpoint whose deliveries have failed for this long is disabled and its owner e-mailed. */
  disableAfterMs: number;
  /** The task queue deliveries run on, apart from the main one (docs/webhooks.md, "Delivery queue"). */
  taskQueue: string;
  /** Deliveries one worker process attempts at once: its workflow task and local activity slots on that queue. */
  concurrency: number;
}

/** The workflow-start dispatcher (docs/architecture.md, "Background work"). Milliseconds. */
export interface StartDispatchConfig {
  /** How often it polls when no insert notification arrives. */
  intervalMs: number;
  /** Longest wait before a failed start is tried again (the wait doubles from 1 s up to this). */
  retryMaxMs: number;
  /** Outbox events fanned out, and starts made, per pass (WORKFLOW_START_BATCH). */
  batchSize: number;
}

/**
 * Intents claimed (and outbox events fanned out) per pass unless configured (WORKFLOW_START_BATCH).
 * A pass ends when all its starts have settled, and a newly committed event waits for the pass in
 * progress: during a 1,000-event webhook burst, passes of 25 instead of 100 halved another
 * seller's p99 (about 1.1 s against 2.0 s, two A/B pairs) at the same delivery rate
 * (docs/webhooks.md, "Fairness").
 */
export const DEFAULT_START_BATCH = 25;

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A comma-separated list of origins exactly as browsers send them in `Origin`: http(s), host,
 * optional non-default port, nothing else (no path, no trailing slash, no `*`). Empty: none.
 */
const originList = Joi.string()
  .allow('')
  .custom((text: string, helpers) => {
    for (const entry of text
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean)) {
      let origin: string | null = null;
      try {
        const url = new URL(entry);
        if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
      } catch {
        origin = null;
      }
      if (origin !== entry)
        return helpers.message(
          {
            custom:
              '{{#label}} entry {{#entry}} is not an origin as browsers send it (scheme and host in lower case, optional non-default port, no path), e.g. https://app.example or http://localhost:5173',
          },
          { entry },
        );
    }
    return text;
  });

const DEV_JWT_SECRET = 'development-only-secret-change-me-0123456789';

/**
 * Tracing is off unless OTEL_TRACES_EXPORTER names an exporter: `otlp` (OTLP over HTTP/protobuf
 * to OTEL_EXPORTER_OTLP_ENDPOINT) or `console` (spans printed, for a look on a laptop). Unset and
 * `none` are off, and OTEL_SDK_DISABLED=true turns it off whatever the exporter says.
 */
export interface TracingConfig {
  exporter: 'none' | 'otlp' | 'console';
}

const tracingSchema = {
  OTEL_TRACES_EXPORTER: Joi.string().valid('none', 'otlp', 'console').default('none'),
  OTEL_SDK_DISABLED: Joi.boolean().default(false),
};

function tracingFrom(value: { OTEL_TRACES_EXPORTER: TracingConfig['exporter']; OTEL_SDK_DISABLED: boolean }): TracingConfig {
  return { exporter: value.OTEL_SDK_DISABLED ? 'none' : value.OTEL_TRACES_EXPORTER };
}

/**
 * The tracing part alone, for the entry points' first module: tracing has to start before the
 * modules it instruments load, i.e. before the rest of the configuration is read.
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  const { value, error } = Joi.object(tracingSchema).unknown(true).validate(env, { convert: true });
  if (error) throw new ConfigError(`Invalid configuration (see .env.example):\n  - ${error.message}`);
  return tracingFrom(value);
}

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  PORT: Joi.number().port().default(3000),
  HOST: Joi.string().default('127.0.0.1'),
  PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .required(),
  // Comma-separated; each entry must be a postgres:// URL (an empty list: no replicas).
  DATABASE_REPLICA_URLS: Joi.string()
    .allow('')
    .default('')
    .custom((text: string, helpers) => {
      const bad = splitList(text).find(
        (url) =>
          Joi.string()
            .uri({ scheme: ['postgres', 'postgresql'] })
            .validate(url).error,
      );
      return bad === undefined ? text : helpers.message({ custom: '{{#label}} entry {{#entry}} is not a postgres:// URL' }, { entry: bad });
    }),
  DATABASE_REPLICA_MAX_LAG_MS: Joi.number().integer().min(0).default(3000),
  DATABASE_REPLICA_CHECK_MS: Joi.number().integer().min(50).default(500),
  // Below the 30 s after which Kubernetes and Docker send SIGKILL.
  SHUTDOWN_GRACE: Joi.string().pattern(DURATION).default('25s'),
  METRICS_HOST: Joi.string().default('127.0.0.1'),
  METRICS_PORT: Joi.number().port().default(9464),
  WORKER_METRICS_PORT: Joi.number().port().default(9465),
  TEMPORAL_SDK_METRICS_PORT: Joi.number().port().default(9466),
  ...tracingSchema,
  TEMPORAL_ADDRESS: Joi.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: Joi.string().default('default'),
  TEMPORAL_TASK_QUEUE: Joi.string().default('marketplace'),
  // 0 turns the cache off (every task replays); otherwise at least 2 (the SDK's floor).
  WORKER_MAX_CACHED_WORKFLOWS: Joi.number().integer().min(0).invalid(1).default(100),
  // The SDK's default; each running activity holds a database connection or an outgoing HTTP request.
  WORKER_MAX_CONCURRENT_ACTIVITIES: Joi.number().integer().min(1).max(10_000).default(100),
  TEMPORAL_TLS: Joi.boolean().default(false),
  TEMPORAL_PAYLOAD_KEYS: Joi.string()
    .pattern(/^\s*[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=\s*)*$/)
    .messages({ 'string.pattern.base': '"TEMPORAL_PAYLOAD_KEYS" must be id:base64-of-32-bytes, comma-separated, newest first' })
    .when('NODE_ENV', { is: 'production', then: Joi.required() }),
  CODEC_HOST: Joi.string().default('127.0.0.1'),
  CODEC_PORT: Joi.number().port().default(8234),
  CODEC_CORS_ORIGINS: Joi.string().default('http://127.0.0.1:8233,http://localhost:8233'),
  JWT_SECRET: Joi.string()
    .min(32)
    .when('NODE_ENV', {
      is: 'production',
      then: Joi.required(),
      otherwise: Joi.optional().default(DEV_JWT_SECRET),
    }),
  ACCESS_TOKEN_TTL_SECONDS: Joi.number().integer().min(30).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .default(30 * 86_400),
  SCRYPT_LOG_N: Joi.number().integer().min(10).max(20).default(15),
  SIGN_IN_MAX_FAILURES: Joi.number().integer().min(3).max(100).default(10),
  SIGN_IN_LOCK_SECONDS: Joi.number().integer().min(10).max(86_400).default(900),
  EMAIL_CODE_TTL_SECONDS: Joi.number().integer().min(30).default(900),
  EMAIL_CODE_MAX_ATTEMPTS: Joi.number().integer().min(1).max(20).default(5),
  EMAIL_FROM: Joi.string().default('Marketplace <no-reply@marketplace.local>'),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  JSON_BODY_LIMIT: Joi.string()
    .pattern(/^\d+(kb|mb)$/)
    .default('256kb'),
  VALIDATE_RESPONSES: Joi.boolean(),
  CORS_ALLOWED_ORIGINS: originList,
  WEBHOOK_SECRET_KEY: Joi.string().min(32),
  WEBHOOK_ALLOW_PRIVATE_URLS: Joi.boolean(),
  WEBHOOK_RETRY_SCHEDULE: Joi.string()
    .pattern(/^\s*\d+(ms|s|m|h|d)(\s*,\s*\d+(ms|s|m|h|d))*\s*$/)
    .default('5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_TIMEOUT: Joi.string().pattern(DURATION).default('15s'),
  WEBHOOK_DISABLE_AFTER: Joi.string().pattern(DURATION).default('5d'),
  WEBHOOK_TASK_QUEUE: Joi.string().default('marketplace-webhooks'),
  // Each slot is at most one outgoing POST (and a database connection around it) at a time.
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(2).max(1_000).default(100),
  WORKFLOW_START_INTERVAL: Joi.string().pattern(DURATION).default('1s'),
  WORKFLOW_START_RETRY_MAX: Joi.string().pattern(DURATION).default('30s'),
  WORKFLOW_START_BATCH: Joi.number().integer().min(1).max(1000).default(DEFAULT_START_BATCH),
  CHECKOUT_HOLD_SECONDS: Joi.number().integer().min(1).max(86_400).default(900),
  CHECKOUT_EXPIRY_SWEEP: Joi.string().pattern(DURATION).default('10s'),
  ORDER_AUTO_RECEIPT_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(21 * 86_400),
  SELLER_FEE_BPS: Joi.number().integer().min(0).max(10_000).default(500),
  FUNDS_HOLD_SECONDS: Joi.number()
    .integer()
    .min(0)
    .default(3 * 86_400),
  PAYOUT_INTERVAL: Joi.string().pattern(DURATION).default('1d'),
  PAYOUT_ARRIVAL_DAYS: Joi.number().integer().min(0).max(30).default(2),
  PAYOUT_TRANSIT_SECONDS: Joi.number().integer().min(0).default(86_400),
  MONEY_RECONCILE_EVERY: Joi.string().pattern(DURATION).default('15m'),
  MONEY_STUCK_AFTER_SECONDS: Joi.number().integer().min(0).default(3_600),
  ORDER_DELIVERED_RECEIPT_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(3 * 86_400),
  ORDER_DISPATCH_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(3 * 86_400),
  ORDER_CANCELLATION_ANSWER_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(2 * 86_400),
  TRACKING_POLL_SECONDS: Joi.number().integer().min(1).default(3_600),
  TRACKING_POLL_MAX_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(6 * 3_600),
  TRACKING_GIVE_UP_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(30 * 86_400),
  CARRIER_SIMULATOR_STEP_SECONDS: Joi.number().integer().min(1).default(86_400),
  CARRIER_PROVIDER: Joi.string().valid('simulator', 'easypost').default('simulator'),
  EASYPOST_API_KEY: Joi.string().when('CARRIER_PROVIDER', { is: 'easypost', then: Joi.required() }),
  EASYPOST_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.easypost.com'),
  REVIEW_WINDOW_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(14 * 86_400),
  UPLOADS_DIR: Joi.string().default('.data/uploads'),
  UPLOAD_MAX_BYTES: Joi.number()
    .integer()
    .min(1024)
    .default(10 * 1024 * 1024),
  UPLOAD_MAX_PENDING: Joi.number().integer().min(1).default(50),
  UPLOAD_MAX_PENDING_MB: Joi.number().integer().min(1).default(200),
  UPLOADS_PER_MINUTE: Joi.number().integer().min(1).default(60),
  UPLOAD_COLLECT_AFTER: Joi.string().pattern(DURATION).default('24h'),
  UPLOAD_COLLECT_EVERY: Joi.string().pattern(DURATION).default('1h'),
  IMAGE_DECODE_CONCURRENCY: Joi.number().integer().min(1).max(16).default(2),
  IMAGE_DECODE_QUEUE: Joi.number().integer().min(0).default(64),
  IMPORT_MAX_BYTES: Joi.number()
    .integer()
    .min(1024)
    .default(5 * 1024 * 1024),
  // Bounds the worker's parse of one file (time and memory), whatever the rows hold.
  IMPORT_MAX_ROWS: Joi.number().integer().min(1).default(50_000),
  IMPORT_BATCH_SIZE: Joi.number().integer().min(1).max(5000).default(500),
  // Above the longest webhook metrics window (30 d), so those figures stay whole.
  RETENTION_AGE: Joi.string().pattern(DURATION).default('35d'),
  RETENTION_EVERY: Joi.string().pattern(DURATION).default('1h'),
  CASE_AUTO_ESCALATE_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(7 * 86_400),
  CASE_DECISION_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(3 * 86_400),
  CONVERSATION_NOTIFY_GRACE_SECONDS: Joi.number().integer().min(1).default(120),
  CONVERSATION_NOTIFY_MAX_DELAY_SECONDS: Joi.number().integer().min(1).default(900),
  CONVERSATION_INACTIVE_SECONDS: Joi.number().integer().min(0).default(300),
  OPTIMIZER_TASK_QUEUE: Joi.string().default('optimizer'),
  OPTIMIZER_CONCURRENCY: Joi.number().integer().min(1).max(64).default(1),
  ALERT_DIGEST_INTERVAL_SECONDS: Joi.number().integer().min(1).default(900),
  WANTS_OPTIMIZATION_WAIT_MS: Joi.number().integer().min(0).max(30_000).default(5000),
  WANTS_OPTIMIZATION_TIME_LIMIT_MS: Joi.number().integer().min(100).max(10_000).default(5000),
  PRICE_GUIDE_ROLLUP_EVERY: Joi.string().pattern(DURATION).default('1h'),
  OFFER_EXPIRY_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(48 * 3600),
  OFFER_PAY_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(48 * 3600),
  OFFER_MAX_PER_WINDOW: Joi.number().integer().min(1).default(3),
  OFFER_WINDOW_SECONDS: Joi.number()
    .integer()
    .min(1)
    .default(48 * 3600),
  SELLER_SEARCH_CACHE_MS: Joi.number().integer().min(0).max(600_000).default(5000),
  // Below the 30 s that Discover answers already allow shared caches (Cache-Control max-age).
  ADDRESS_LOOKUP_PROVIDER: Joi.string().valid('embedded', 'loqate').default('embedded'),
  LOQATE_KEY: Joi.string().when('ADDRESS_LOOKUP_PROVIDER', { is: 'loqate', then: Joi.required() }),
  LOQATE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.addressy.com'),
  ADDRESS_RETRIEVE_TTL_SECONDS: Joi.number().integer().min(60).default(86_400),
  BILLING_PORTAL_LINK_TTL_SECONDS: Joi.number().integer().min(30).max(86_400).default(900),
  // Changes the database notifies show at once; this bounds what it does not (docs/discover.md, "Caching").
  // At most the 30 s that Discover answers already allow shared caches (Cache-Control max-age).
  DISCOVER_CACHE_MS: Joi.number().integer().min(0).max(30_000).default(30_000),
  // About 1.2 KB per item as counted (its JSON, its entry, its share of its load's allocation): 160 MB
  // keeps a catalog of 130k items whole (docs/discover.md, "How much is kept").
  DISCOVER_ITEM_CACHE_MB: Joi.number().integer().min(1).max(16_384).default(160),
  // About 4.8 KB per item of five listings as counted: 48 MB keeps the listings of some 10k popular items (docs/discover.md, "How much is kept").
  DISCOVER_LISTING_CACHE_MB: Joi.number().integer().min(1).max(16_384).default(48),
}).unknown(true);

/** `250ms`, `5s`, `30m`, `2h`, `5d` → milliseconds. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new ConfigError(`Invalid duration "${text}"`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * Without WEBHOOK_SECRET_KEY the key is derived from JWT_SECRET with HKDF-SHA256 (info
 * `webhook-endpoint-secrets`), so one configured secret suffices and the two keys differ.
 */
function webhookSecretKey(explicit: string | undefined, jwtSecret: string): Buffer {
  const ikm = explicit ?? jwtSecret;
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'webhook-endpoint-secrets', 32));
}

/**
 * The key outside production when TEMPORAL_PAYLOAD_KEYS is unset: derived from a constant, so
 * it is public. It keeps development and tests on the same encrypted path as production;
 * production refuses to start without keys of its own.
 */
export const EMBEDDED_PAYLOAD_KEY_ID = 'embedded-dev';

function payloadKeys(setting: string | undefined): { id: string; key: Buffer }[] {
  if (setting === undefined) {
    return [
      {
        id: EMBEDDED_PAYLOAD_KEY_ID,
        key: Buffer.from(hkdfSync('sha256', 'marketplace-development', Buffer.alloc(0), 'temporal-payloads', 32)),
      },
    ];
  }
  return setting.split(',').map((entry) => {
    const [id, key] = entry.trim().split(':') as [string, string];
    return { id, key: Buffer.from(key, 'base64') };
  });
}

export class ConfigError extends Error {}

const splitList = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { value, error } = schema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const lines = error.details.map((d) => `  - ${d.message}`).join('\n');
    throw new ConfigError(`Invalid configuration (see .env.example):\n${lines}`);
  }
  const nodeEnv = value.NODE_ENV as Config['env'];
  const port = value.PORT as number;
  return {
    env: nodeEnv,
    port,
    host: value.HOST,
    publicBaseUrl: (value.PUBLIC_BASE_URL ?? `http://${value.HOST}:${port}`).replace(/\/$/, ''),
    logLevel: value.LOG_LEVEL,
    shutdownGraceMs: parseDuration(value.SHUTDOWN_GRACE),
    databaseUrl: value.DATABASE_URL,
    replicas: {
      urls: splitList(value.DATABASE_REPLICA_URLS as string),
      maxLagMs: value.DATABASE_REPLICA_MAX_LAG_MS,
      checkEveryMs: value.DATABASE_REPLICA_CHECK_MS,
    },
    metrics: {
      host: value.METRICS_HOST,
      apiPort: value.METRICS_PORT,
      workerPort: value.WORKER_METRICS_PORT,
      sdkPort: value.TEMPORAL_SDK_METRICS_PORT,
    },
    tracing: tracingFrom(value),
    temporal: {
      address: value.TEMPORAL_ADDRESS,
      namespace: value.TEMPORAL_NAMESPACE,
      taskQueue: value.TEMPORAL_TASK_QUEUE,
      tls: value.TEMPORAL_TLS,
      maxCachedWorkflows: value.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentActivities: value.WORKER_MAX_CONCURRENT_ACTIVITIES,
      payloadKeys: payloadKeys(value.TEMPORAL_PAYLOAD_KEYS),
      codec: {
        host: value.CODEC_HOST,
        port: value.CODEC_PORT,
        corsOrigins: (value.CODEC_CORS_ORIGINS as string)
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      },
    },
    auth: {
      jwtSecret: new TextEncoder().encode(value.JWT_SECRET),
      accessTokenTtlSeconds: value.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: value.REFRESH_TOKEN_TTL_SECONDS,
      scryptLogN: value.SCRYPT_LOG_N,
      signInMaxFailures: value.SIGN_IN_MAX_FAILURES,
      signInLockSeconds: value.SIGN_IN_LOCK_SECONDS,
    },
    emailChange: {
      codeTtlSeconds: value.EMAIL_CODE_TTL_SECONDS,
      maxAttempts: value.EMAIL_CODE_MAX_ATTEMPTS,
    },
    email: { from: value.EMAIL_FROM, smtpUrl: value.SMTP_URL },
    http: {
      jsonBodyLimit: value.JSON_BODY_LIMIT,
      // Response validation keeps the OpenAPI document honest; it costs a little CPU, so
      // production leaves it off unless asked.
      validateResponses: value.VALIDATE_RESPONSES ?? nodeEnv !== 'production',
      cors: {
        allowedOrigins: ((value.CORS_ALLOWED_ORIGINS as string | undefined) ?? '')
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
        // Set (even empty) it is the whole list; production and tests are closed unless it is.
        allowLoopback: value.CORS_ALLOWED_ORIGINS === undefined && nodeEnv === 'development',
      },
    },
    webhooks: {
      secretKey: webhookSecretKey(value.WEBHOOK_SECRET_KEY, value.JWT_SECRET),
      // Production must opt in explicitly: private targets there would be an SSRF hole.
      allowPrivateUrls: value.WEBHOOK_ALLOW_PRIVATE_URLS ?? nodeEnv !== 'production',
      retryScheduleMs: (value.WEBHOOK_RETRY_SCHEDULE as string).split(',').map(parseDuration),
      attemptTimeoutMs: parseDuration(value.WEBHOOK_TIMEOUT),
      disableAfterMs: parseDuration(value.WEBHOOK_DISABLE_AFTER),
      taskQueue: value.WEBHOOK_TASK_QUEUE,
      concurrency: value.WEBHOOK_CONCURRENCY,
    },
    starts: {
      intervalMs: parseDuration(value.WORKFLOW_START_INTERVAL),
      retryMaxMs: parseDuration(value.WORKFLOW_START_RETRY_MAX),
      batchSize: value.WORKFLOW_START_BATCH,
    },
    uploads: {
      dir: path.resolve(value.UPLOADS_DIR),
      maxBytes: value.UPLOAD_MAX_BYTES,
      maxPending: value.UPLOAD_MAX_PENDING,
      maxPendingBytes: value.UPLOAD_MAX_PENDING_MB * 1024 * 1024,
      perMinute: value.UPLOADS_PER_MINUTE,
      collectAfterMs: parseDuration(value.UPLOAD_COLLECT_AFTER),
      collectEveryMs: parseDuration(value.UPLOAD_COLLECT_EVERY),
      decodeConcurrency: value.IMAGE_DECODE_CONCURRENCY,
      decodeQueue: value.IMAGE_DECODE_QUEUE,
    },
    imports: { maxBytes: value.IMPORT_MAX_BYTES, maxRows: value.IMPORT_MAX_ROWS, batchSize: value.IMPORT_BATCH_SIZE },
    search: { cacheTtlMs: value.SELLER_SEARCH_CACHE_MS },
    discover: {
      cacheTtlMs: value.DISCOVER_CACHE_MS,
      itemCacheBytes: value.DISCOVER_ITEM_CACHE_MB * 1024 * 1024,
      listingCacheBytes: value.DISCOVER_LISTING_CACHE_MB * 1024 * 1024,
    },
    checkout: { holdSeconds: value.CHECKOUT_HOLD_SECONDS, expirySweepMs: parseDuration(value.CHECKOUT_EXPIRY_SWEEP) },
    orders: {
      autoReceiptSeconds: value.ORDER_AUTO_RECEIPT_SECONDS,
      deliveredReceiptSeconds: value.ORDER_DELIVERED_RECEIPT_SECONDS,
      dispatchSeconds: value.ORDER_DISPATCH_SECONDS,
      cancellationAnswerSeconds: value.ORDER_CANCELLATION_ANSWER_SECONDS,
    },
    money: {
      sellerFeeBps: value.SELLER_FEE_BPS,
      fundsHoldSeconds: value.FUNDS_HOLD_SECONDS,
      payoutIntervalMs: parseDuration(value.PAYOUT_INTERVAL),
      payoutArrivalDays: value.PAYOUT_ARRIVAL_DAYS,
      payoutTransitSeconds: value.PAYOUT_TRANSIT_SECONDS,
      reconcileEveryMs: parseDuration(value.MONEY_RECONCILE_EVERY),
      stuckAfterSeconds: value.MONEY_STUCK_AFTER_SECONDS,
    },
    tracking: {
      pollSeconds: value.TRACKING_POLL_SECONDS,
      pollMaxSeconds: value.TRACKING_POLL_MAX_SECONDS,
      giveUpSeconds: value.TRACKING_GIVE_UP_SECONDS,
      simulatorStepSeconds: value.CARRIER_SIMULATOR_STEP_SECONDS,
      carrierProvider: value.CARRIER_PROVIDER,
      easypostApiKey: value.EASYPOST_API_KEY,
      easypostUrl: value.EASYPOST_URL,
    },
    reviews: { windowSeconds: value.REVIEW_WINDOW_SECONDS },
    retention: { olderThanMs: parseDuration(value.RETENTION_AGE), everyMs: parseDuration(value.RETENTION_EVERY) },
    cases: { autoEscalateSeconds: value.CASE_AUTO_ESCALATE_SECONDS, decisionSeconds: value.CASE_DECISION_SECONDS },
    addressLookup: {
      provider: value.ADDRESS_LOOKUP_PROVIDER,
      loqateKey: value.LOQATE_KEY,
      loqateUrl: value.LOQATE_URL,
      retrieveTtlSeconds: value.ADDRESS_RETRIEVE_TTL_SECONDS,
    },
    billingPortal: { linkTtlSeconds: value.BILLING_PORTAL_LINK_TTL_SECONDS },
    conversations: {
      notifyGraceSeconds: value.CONVERSATION_NOTIFY_GRACE_SECONDS,
      notifyMaxDelaySeconds: value.CONVERSATION_NOTIFY_MAX_DELAY_SECONDS,
      inactiveSeconds: value.CONVERSATION_INACTIVE_SECONDS,
    },
    alerts: { digestIntervalMs: value.ALERT_DIGEST_INTERVAL_SECONDS * 1000 },
    wants: {
      optimizerTaskQueue: value.OPTIMIZER_TASK_QUEUE,
      optimizerConcurrency: value.OPTIMIZER_CONCURRENCY,
      waitMs: value.WANTS_OPTIMIZATION_WAIT_MS,
      defaultTimeLimitMs: value.WANTS_OPTIMIZATION_TIME_LIMIT_MS,
    },
    priceGuide: { rollupEveryMs: parseDuration(value.PRICE_GUIDE_ROLLUP_EVERY) },
    offers: {
      expirySeconds: value.OFFER_EXPIRY_SECONDS,
      paySeconds: value.OFFER_PAY_SECONDS,
      maxPerWindow: value.OFFER_MAX_PER_WINDOW,
      windowSeconds: value.OFFER_WINDOW_SECONDS,
    },
  };
}

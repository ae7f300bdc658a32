import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
  ValidateBy,
} from 'class-validator';
import { parseRetrySchedule } from './retry-schedule.js';

import { IsTrustProxy, toTrustProxy, type TrustProxy } from './trust-proxy.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `true`/`false`/`1`/`0` (any case); anything else stays a string and fails @IsBoolean. */
const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
};

/** Strict integer: "12abc" must fail instead of becoming 12. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/** `a, b,,c` → ['a', 'b', 'c']; empty or blank → undefined (unset). */
const toList = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
};

/**
 * Every environment variable the service reads, validated once at start-up.
 * Defaults live here and in `.env.example`; keep the two in step.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  /** Unset: `localhost` (loopback only). Serving other machines takes an explicit 0.0.0.0. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  HOST: string | undefined = undefined;

  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** Issuer of tokens and base of absolute URLs; defaults to http://localhost:PORT. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_URL: string | undefined = undefined;

  /** Unset: an embedded PostgreSQL under DATA_DIR/postgres is used. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string | undefined = undefined;

  /**
   * Streaming replicas of DATABASE_URL (comma-separated postgres:// URLs): they may serve the
   * change feed, order lists in cursor mode, product lists and data exports (CONTRACT 8).
   * Unset: the primary serves every read.
   */
  @IsOptional()
  @Transform(toList)
  @Matches(/^postgres(ql)?:\/\/.+/, {
    each: true,
    message: 'DATABASE_READ_URLS must be comma-separated postgres:// URLs',
  })
  DATABASE_READ_URLS: string[] | undefined = undefined;

  /** A replica whose replay lags more than this (ms) is left out until it catches up. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  READ_REPLICA_MAX_LAG_MS = 2_000;

  @IsString()
  @MinLength(1)
  DATA_DIR = '.data';

  @Transform(toBoolean)
  @IsBoolean()
  SEED_DEMO = true;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE = 10;

  /**
   * Deadline of every statement a request runs (PostgreSQL's statement_timeout on the
   * request pool): a statement past it is cancelled and the request answers 503. Long enough
   * for the slowest list the API allows; background work and the CLI have none.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DB_STATEMENT_TIMEOUT_MS = 5_000;

  /**
   * List and feed requests one tenant (however many apps it has) may run at once per
   * process; more wait briefly, then get 429. Never more than DB_POOL_SIZE − 2.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(200)
  EXPENSIVE_CONCURRENCY_PER_TENANT = 6;

  /** List and feed requests one app may run at once per process (within its tenant's). */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(200)
  EXPENSIVE_CONCURRENCY_PER_APP = 4;

  /**
   * The bytes (MiB) the answers of running list, feed, timeline and export requests may take
   * together per process, each counted by the largest it can be (a page of 100 of the largest
   * orders counts 25 MiB, a feed page 4 MiB); a request that does not fit waits its turn.
   * Building an answer takes about three times its size in heap: with the heap the service
   * runs with (256 MiB), any number of the largest requests at once keep it serving.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(8)
  @Max(4096)
  EXPENSIVE_MEMORY_MB = 48;

  /** Connections for background work (jobs, webhook dispatch, counters, limits sync). */
  @Transform(toInteger)
  @IsInt()
  @Min(2)
  @Max(100)
  DB_BACKGROUND_POOL_SIZE = 8;

  /** Whole-request deadline; slow or stuck clients are cut off after it. */
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  REQUEST_TIMEOUT_MS = 30_000;

  /** How long SIGTERM waits for in-flight work before giving up. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /** Key of the HMAC that hashes client secrets (base64, >= 32 bytes). Generated into DATA_DIR when unset. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/_-]{43,}={0,2}$/, {
    message: 'SECRET_PEPPER must be base64 of at least 32 random bytes',
  })
  SECRET_PEPPER: string | undefined = undefined;

  /** PEM (PKCS#8) of the EC P-256 key that signs access tokens (ES256). Generated into DATA_DIR when unset. */
  @IsOptional()
  @Matches(/-----BEGIN PRIVATE KEY-----[\s\S]+-----END PRIVATE KEY-----/, {
    message: 'JWT_SIGNING_KEY must be a PKCS#8 PEM private key (EC P-256)',
  })
  JWT_SIGNING_KEY: string | undefined = undefined;

  /** More public keys (PEM, concatenated) still accepted and published, for key rotation. */
  @IsOptional()
  @Matches(/-----BEGIN PUBLIC KEY-----/, {
    message: 'JWT_PUBLISHED_KEYS must hold PEM public keys',
  })
  JWT_PUBLISHED_KEYS: string | undefined = undefined;

  /** Lifetime of access tokens issued by the token endpoint, in seconds. */
  @Transform(toInteger)
  @IsInt()
  @Min(60)
  @Max(86_400)
  ACCESS_TOKEN_TTL = 3600;

  /** Tokens issued per client_id per minute (429 beyond); only correct secrets count. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  TOKEN_RATE_LIMIT_PER_CLIENT = 60;

  /** Failed client authentications per caller address per minute; beyond, failures get 429. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  TOKEN_FAILURES_PER_ADDRESS = 30;

  /** Authenticated API requests per token (app token or customer session) per minute. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  API_RATE_LIMIT_PER_TOKEN = 1200;

  /**
   * Proxies in front whose X-Forwarded-For is believed: a hop count, or a comma-separated
   * list of addresses/CIDRs. Unset: the peer address is the client's. Never "trust anyone".
   */
  @Transform(toTrustProxy)
  @IsTrustProxy()
  TRUST_PROXY: TrustProxy = false;

  /** Set: GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. Unset: open. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN: string | undefined = undefined;

  /** How long an Idempotency-Key and its stored response are kept. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(24 * 30)
  IDEMPOTENCY_TTL_HOURS = 24;

  /** Lifetime of customer session tokens, in seconds (24 h). */
  @Transform(toInteger)
  @IsInt()
  @Min(60)
  @Max(30 * 86_400)
  CUSTOMER_SESSION_TTL = 86_400;

  /** A refresh chain lives at most this long from its login, in seconds (30 days). */
  @Transform(toInteger)
  @IsInt()
  @Min(60)
  @Max(365 * 86_400)
  CUSTOMER_REFRESH_TTL = 30 * 86_400;

  /** A refresh chain unused this long ends, in seconds (7 days). */
  @Transform(toInteger)
  @IsInt()
  @Min(60)
  @Max(365 * 86_400)
  CUSTOMER_REFRESH_IDLE = 7 * 86_400;

  /** Lifetime of email-verification and password-reset tickets, in seconds (24 h). */
  @Transform(toInteger)
  @IsInt()
  @Min(60)
  @Max(30 * 86_400)
  CUSTOMER_TICKET_TTL = 86_400;

  /** Events (and their webhook deliveries) are kept this long; older cursors get 410. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS = 30;

  /** `http:` webhook URLs (development against a local receiver); production wants https. */
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP = false;

  /** Webhooks to loopback, private, link-local and metadata addresses (never in production). */
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;

  /** Delays before each retry of a failed delivery (s, m, h, d); then the delivery fails. */
  @ValidateBy({
    name: 'retrySchedule',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && parseRetrySchedule(v) !== undefined,
      defaultMessage: () =>
        'WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated delays of 1s to 7d, such as 5s,5m,2h',
    },
  })
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  /** A delivery that got no 2xx within this many seconds failed. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(30)
  WEBHOOK_TIMEOUT_SECONDS = 10;

  /**
   * Deliveries in flight at once per worker process, each on its own poller: a slow
   * receiver holds one of them for at most WEBHOOK_TIMEOUT_SECONDS, never a whole batch.
   * Twice WEBHOOK_TENANT_CONCURRENCY: one tenant's silent endpoints hold half the pollers.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_CONCURRENCY = 64;

  /**
   * How often each process looks for new events to dispatch (one dispatches at a time). A
   * look that finds nothing is one small read (no write), so it can be often: it bounds the
   * lag from commit to delivery.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(50)
  @Max(60_000)
  WEBHOOK_DISPATCH_INTERVAL_MS = 100;

  /** Failed logins per (tenant, email) per window before 429. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  LOGIN_FAILURES_PER_EMAIL = 10;

  /** Failed logins per (tenant, X-Customer-IP) per window before 429. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  LOGIN_FAILURES_PER_CUSTOMER_IP = 50;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  LOGIN_FAILURE_WINDOW_SECONDS = 900;

  /** Registrations per (tenant, X-Customer-IP) per REGISTRATION_WINDOW_SECONDS. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  REGISTRATIONS_PER_CUSTOMER_IP = 20;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  REGISTRATION_WINDOW_SECONDS = 3600;

  /** Password hashes (argon2) computed at once per process; more wait in a bounded queue. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  PASSWORD_HASH_CONCURRENCY = 2;

  /** `off`: this process only enqueues; run `npm run worker` elsewhere. */
  @IsIn(['on', 'off'])
  WORKER: 'on' | 'off' = 'on';

  /** Import workers per process (each polls and processes a batch at a time). */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  WORKER_CONCURRENCY = 4;

  /** Jobs fetched per poll by each worker. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(500)
  IMPORT_BATCH_SIZE = 25;

  /** An import attempt still active after this is presumed dead (crashed process) and retried. */
  @Transform(toInteger)
  @IsInt()
  @Min(5)
  IMPORT_JOB_TIMEOUT_SECONDS = 30;

  /** Retries after the first attempt, with exponential backoff from IMPORT_RETRY_DELAY_SECONDS. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(20)
  IMPORT_RETRY_LIMIT = 5;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  IMPORT_RETRY_DELAY_SECONDS = 2;

  /**
   * Webhook attempts in flight at once per endpoint and per tenant, across all processes:
   * a slow endpoint holds at most its own share, a tenant at most its share of the pollers.
   * 16 per endpoint keeps up with one instance's sustained order rate (docs/BENCHMARKS.md).
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  WEBHOOK_ENDPOINT_CONCURRENCY = 16;

  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_TENANT_CONCURRENCY = 32;

  /**
   * Client connections one process holds open; new ones beyond are closed as they arrive.
   * Never more than 80% of the open-file limit (ulimit -n) is used, whatever is set here.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  HTTP_MAX_CONNECTIONS = 10_000;

  get webhookRetryDelays(): number[] {
    return parseRetrySchedule(this.WEBHOOK_RETRY_SCHEDULE) ?? [];
  }

  get host(): string {
    return this.HOST ?? 'localhost';
  }

  get publicUrl(): string {
    return (this.PUBLIC_URL ?? `http://localhost:${this.PORT}`).replace(/\/+$/, '');
  }

  get embeddedDatabase(): boolean {
    return !this.DATABASE_URL;
  }
}

export class ConfigError extends Error {}

/**
 * Builds the configuration from the environment. Empty strings count as unset so that
 * `.env.example` copied verbatim works. Throws a ConfigError naming every bad variable.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Optional fields are initialised to undefined so that this lists every variable.
  const known = Object.keys(new AppConfig());
  const raw = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => value !== '' && known.includes(key)),
  );
  const config = plainToInstance(AppConfig, raw);
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    // The variable's name and the rule, never its value: values include keys and passwords.
    const lines = errors.map((e) => {
      const reasons = Object.values(e.constraints ?? {}).join('; ');
      return `  ${e.property}: ${reasons}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (config.NODE_ENV === 'production' && config.DATABASE_URL) {
    // Every instance must hash secrets and sign tokens with the same keys.
    const missing = (['SECRET_PEPPER', 'JWT_SIGNING_KEY'] as const).filter((k) => !config[k]);
    if (missing.length > 0) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k} is required when DATABASE_URL is set in production`).join('\n')}`,
      );
    }
  }
  return config;
}

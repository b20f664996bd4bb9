// The only module that reads process.env. Everything else receives a frozen, typed Config.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';

export type ProcessRole = 'all' | 'api' | 'worker';

export interface Config {
  /** TCP port of the HTTP API. Default 8080. */
  port: number;
  /** Interface to bind. Default 127.0.0.1. */
  host: string;
  /** Where the SQLite file, local blobs and generated secrets live. Default ./data. */
  dataDir: string;
  /** Base of every link the service hands out (signed downloads, avatars, share links). */
  publicUrl: string;
  /** Render worker threads. Default: number of cores. */
  renderThreads: number;
  /** PostgreSQL instead of SQLite when set. */
  databaseUrl: string | null;
  /** BullMQ, rate limits and idempotency in Redis when set. */
  redisUrl: string | null;
  /** Prefix of every Redis key of this deployment (several deployments or test runs can share one Redis). Default placard. */
  redisPrefix: string;
  /** S3-compatible object storage instead of local disk when S3_ENDPOINT is set. */
  s3: S3Settings | null;
  /** What this process runs: the HTTP API, the job workers, or both (the default). */
  role: ProcessRole;
  /** How long a stopping process lets running jobs finish before handing them back. Default 25 s. */
  stopGraceSeconds: number;
  /** How long a job claim holds without renewal; a process dead longer than this loses its jobs to another. Default 30 s. */
  jobLeaseSeconds: number;
  /**
   * How often the job table (embedded shape, PostgreSQL without Redis) is asked for work that this process was not told
   * about: other processes' jobs, expired leases. Default 500 ms.
   */
  jobPollMs: number;
  logLevel: string;
  /** Create the demo team, project and credential on first start. Default true. */
  demo: boolean;
  /** HS256 secret of access tokens; generated and kept in the data dir when absent. */
  jwtSecret: string | null;
  tokenTtlSeconds: number;
  /** Lifetime of signed download links. Default 3600. */
  urlTtlSeconds: number;
  /** FFMPEG_PATH: a system ffmpeg to prefer over the one @ffmpeg-installer/ffmpeg brings. */
  ffmpegPath: string | null;
  /** Time budget of one render (SPEC §6): stills 60 s, video 10 min. */
  renderTimeouts: { stillSeconds: number; videoSeconds: number };
  /** Export files waiting or rendering beyond which new exports are refused with 503 and Retry-After. */
  queueLimit: number;
  /**
   * PLACARD_MAX_QUEUE_WAIT_SECONDS: an export whose last file is expected to be rendered later than this (its files,
   * those ahead of it in fair turns, the render rate of the last minute) is refused with 503 and Retry-After. Default
   * 900 (15 minutes).
   */
  maxQueueWaitSeconds: number;
  /**
   * PLACARD_RENDER_RATE_TTL_MS: how long a process reuses the render rate of the last minute (the expected wait's
   * divisor) before reading it again; a one-minute rate hardly moves in a second, and reading it costs a statement
   * or a Redis round trip per export request (issue 21). 0 reads it every time. Default 1 000.
   */
  renderRateTtlMs: number;
  /**
   * PLACARD_SQLITE_CHECKPOINT_MS: how often a thread of its own checkpoints the SQLite file's WAL (issue 21: off the
   * event loop); 0 leaves it to SQLite, which checkpoints in the commit that fills the WAL. Default 200.
   */
  sqliteCheckpointMs: number;
  /**
   * PLACARD_TEAM_FILES_IN_FLIGHT: files one team may have waiting or rendering; an export that would pass it is
   * refused with 429 TEAM_QUEUE_FULL naming the limit, so one team never fills the shared queue. Default 16 000.
   */
  teamFilesInFlight: number;
  /**
   * PLACARD_BATCH_ROWS_IN_FLIGHT: rows of one team's batches handed to the job queue at once (issue 22). A batch
   * hands over more as its rows finish, so a batch of 100 000 rows never floods the queue and the team's single
   * exports and other teams' work take their turns beside it. Default 16.
   */
  batchRowsInFlight: number;
  /**
   * PLACARD_TRUST_PROXY: which proxies in front of the service to trust for the client address (X-Forwarded-For),
   * as Fastify's trustProxy takes it: a hop count (`1`), or a comma-separated list of addresses and CIDRs. Default
   * false: the peer address is the client, and X-Forwarded-For is ignored.
   */
  trustProxy: boolean | number | string[];
  /** Let media and webhook URLs point at private addresses (tests only). */
  allowPrivateUrls: boolean;
  /** PLACARD_ALLOWED_PRIVATE_HOSTS: host names, addresses and CIDRs that media and webhook URLs may reach although private. */
  allowedPrivateHosts: readonly string[];
  rateLimit: {
    enabled: boolean;
    windowSeconds: number;
    /** Requests per window and team on export routes. */
    exports: number;
    /** Requests per window and team (or client address before sign-in) on every other route. */
    other: number;
    /**
     * Export requests refused as invalid (400/422) per window and team: counted apart from `exports`, which counts
     * only accepted exports, so fixing a request never locks its sender out (PLACARD_RATE_LIMIT_INVALID_EXPORTS).
     */
    invalidExports: number;
    /** Render-URL renders (cache misses) per window and team; refused links per window and client address. */
    renderUrls: number;
  };
  /** Render URLs (`GET /r/…`, docs/render-urls.md). */
  renderUrl: RenderUrlSettings;
}

export interface RenderUrlSettings {
  /** `Cache-Control: max-age` of a link that follows the template (not a version). Default 300 s. */
  maxAgeSeconds: number;
  /** How long the previous secret keeps working after a rotation. Default 7 days. */
  secretOverlapSeconds: number;
  /** Bytes of rendered images kept in memory (the first cache tier; the BlobStore is the second). Default 64 MiB. */
  memoryCacheBytes: number;
  /** Largest output a link may ask for, in megapixels (the per-link render budget). Default 10. */
  maxMegapixels: number;
  /** Render-URL renders at once for one team (the render threads are shared with exports). Default: render threads. */
  perTeamConcurrency: number;
  /** Whole-render budget of one link, SOURCE fetches included. Default 10 s. */
  renderTimeoutSeconds: number;
  /** Budget of each SOURCE: its address check before the render, then its download on the render thread. Default 3 s. */
  sourceTimeoutMs: number;
}

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Bucket in the path (`endpoint/bucket/key`), as MinIO and most S3-compatible servers want. Default true. */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, received '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, received ${value}`);
  return value;
}

/**
 * PLACARD_TRUST_PROXY: unset, empty or `false` trusts no proxy; `true` trusts every hop (only behind a proxy that
 * overwrites X-Forwarded-For); a whole number trusts that many hops; otherwise a comma-separated list of addresses
 * and CIDRs (`10.0.0.0/8, 127.0.0.1`), each checked here so that a typo fails at start, not per request.
 */
function trustProxyOf(raw: string | undefined): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 100)
      throw new ConfigError(`PLACARD_TRUST_PROXY hop count must be 1 to 100, received ${hops}`);
    return hops;
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits))) {
      throw new ConfigError(
        `PLACARD_TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses and CIDRs; '${entry}' is none of these`,
      );
    }
  }
  return entries;
}

/** The setting that lets named hosts and ranges be private; refusals name it so an operator knows the way round. */
export const ALLOWED_PRIVATE_HOSTS_SETTING = 'PLACARD_ALLOWED_PRIVATE_HOSTS';

/**
 * Parses the entries of PLACARD_ALLOWED_PRIVATE_HOSTS: host names (`assets.corp`, or `*.corp` for every name under
 * it), IP addresses (IPv6 with or without brackets) and CIDRs. Throws an Error naming the first entry that is none of
 * these. Returns the entries normalised (lower case, no brackets).
 */
export function parseAllowedPrivateHosts(raw: string | readonly string[]): string[] {
  const entries = (typeof raw === 'string' ? raw.split(',') : [...raw]).map((e) => e.trim()).filter(Boolean);
  return entries.map((entry) => {
    const bare = entry.replace(/^\[(.*)\](\/\d+)?$/, '$1$2').toLowerCase();
    if (bare.includes('/')) {
      try {
        ipaddr.parseCIDR(bare);
        return bare;
      } catch {
        throw new Error(`${ALLOWED_PRIVATE_HOSTS_SETTING}: '${entry}' is not a valid CIDR range`);
      }
    }
    if (ipaddr.isValid(bare)) return ipaddr.parse(bare).toString();
    if (/^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(bare)) {
      return bare;
    }
    throw new Error(`${ALLOWED_PRIVATE_HOSTS_SETTING}: '${entry}' is not a host name, an IP address or a CIDR range`);
  });
}

function allowedPrivateHostsOf(value: string | undefined): string[] {
  try {
    return parseAllowedPrivateHosts(value ?? '');
  } catch (error) {
    throw new ConfigError(
      `${(error as Error).message}; list host names (*.corp for every name under corp), addresses and CIDRs, separated by commas`,
    );
  }
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, received '${raw}'`);
}

function optional(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

function s3Settings(env: Env): S3Settings | null {
  const endpoint = optional(env, 'S3_ENDPOINT');
  if (!endpoint) return null;
  if (!/^https?:\/\/[^/]/.test(endpoint)) {
    throw new ConfigError(`S3_ENDPOINT must be an http:// or https:// URL, received '${endpoint}'`);
  }
  const bucket = optional(env, 'S3_BUCKET');
  const accessKeyId = optional(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = optional(env, 'S3_SECRET_ACCESS_KEY');
  if (!bucket || !accessKeyId || !secretAccessKey) {
    throw new ConfigError('S3_ENDPOINT is set: S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set too');
  }
  return {
    endpoint: endpoint.replace(/\/+$/, ''),
    bucket,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', true),
  };
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Readonly<Config> {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const role = (env.PLACARD_ROLE ?? 'all') as ProcessRole;
  if (!['all', 'api', 'worker'].includes(role)) {
    throw new ConfigError(`PLACARD_ROLE must be all, api or worker, received '${role}'`);
  }
  const databaseUrl = optional(env, 'DATABASE_URL');
  const redisUrl = optional(env, 'REDIS_URL');
  if (redisUrl && !/^rediss?:\/\/[^/]/.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL must be redis://host:port or rediss://host:port, received '${redisUrl}'`);
  }
  if (role !== 'all' && !databaseUrl) {
    // Several processes cannot share one SQLite file: the embedded shape is one process.
    throw new ConfigError(`PLACARD_ROLE=${role} needs DATABASE_URL (PostgreSQL): SQLite serves a single process`);
  }
  const redisPrefix = env.PLACARD_REDIS_PREFIX || 'placard';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError(
      `PLACARD_REDIS_PREFIX must be 1 to 64 letters, digits, '.', '_' or '-', received '${redisPrefix}'`,
    );
  }
  const s3 = s3Settings(env);
  const config: Config = {
    port,
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.PLACARD_DATA_DIR || './data'),
    publicUrl: (env.PLACARD_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    renderThreads: integer(env, 'PLACARD_RENDER_THREADS', Math.max(1, os.availableParallelism()), 1, 256),
    databaseUrl,
    redisUrl,
    redisPrefix,
    s3,
    role,
    stopGraceSeconds: integer(env, 'PLACARD_STOP_GRACE_SECONDS', 25, 0, 3600),
    jobLeaseSeconds: integer(env, 'PLACARD_JOB_LEASE_SECONDS', 30, 2, 3600),
    jobPollMs: integer(env, 'PLACARD_JOB_POLL_MS', 500, 10, 3_600_000),
    logLevel: env.LOG_LEVEL || 'info',
    demo: boolean(env, 'PLACARD_DEMO', true),
    jwtSecret: optional(env, 'PLACARD_JWT_SECRET'),
    tokenTtlSeconds: integer(env, 'PLACARD_TOKEN_TTL_SECONDS', 3600, 60, 31 * 24 * 3600),
    urlTtlSeconds: integer(env, 'PLACARD_URL_TTL_SECONDS', 3600, 60, 7 * 24 * 3600),
    ffmpegPath: optional(env, 'FFMPEG_PATH'),
    renderTimeouts: {
      stillSeconds: integer(env, 'PLACARD_RENDER_TIMEOUT_SECONDS', 60, 1, 3600),
      videoSeconds: integer(env, 'PLACARD_VIDEO_RENDER_TIMEOUT_SECONDS', 600, 1, 24 * 3600),
    },
    queueLimit: integer(env, 'PLACARD_QUEUE_LIMIT', 64_000, 1, 100_000_000),
    teamFilesInFlight: integer(env, 'PLACARD_TEAM_FILES_IN_FLIGHT', 16_000, 1, 100_000_000),
    maxQueueWaitSeconds: integer(env, 'PLACARD_MAX_QUEUE_WAIT_SECONDS', 900, 1, 7 * 24 * 3600),
    renderRateTtlMs: integer(env, 'PLACARD_RENDER_RATE_TTL_MS', 1000, 0, 60_000),
    sqliteCheckpointMs: integer(env, 'PLACARD_SQLITE_CHECKPOINT_MS', 200, 0, 60_000),
    batchRowsInFlight: integer(env, 'PLACARD_BATCH_ROWS_IN_FLIGHT', 16, 1, 10_000),
    trustProxy: trustProxyOf(env.PLACARD_TRUST_PROXY),
    allowPrivateUrls: boolean(env, 'PLACARD_ALLOW_PRIVATE_URLS', false),
    allowedPrivateHosts: allowedPrivateHostsOf(env.PLACARD_ALLOWED_PRIVATE_HOSTS),
    rateLimit: {
      enabled: boolean(env, 'PLACARD_RATE_LIMIT', true),
      windowSeconds: 10,
      exports: integer(env, 'PLACARD_RATE_LIMIT_EXPORTS', 15, 1, 1_000_000_000),
      other: integer(env, 'PLACARD_RATE_LIMIT_OTHER', 100, 1, 1_000_000_000),
      renderUrls: integer(env, 'PLACARD_RATE_LIMIT_RENDER_URLS', 300, 1, 1_000_000_000),
      invalidExports: integer(env, 'PLACARD_RATE_LIMIT_INVALID_EXPORTS', 60, 1, 1_000_000_000),
    },
    renderUrl: {
      maxAgeSeconds: integer(env, 'PLACARD_RENDER_URL_MAX_AGE_SECONDS', 300, 0, 365 * 24 * 3600),
      secretOverlapSeconds: integer(
        env,
        'PLACARD_RENDER_URL_SECRET_OVERLAP_SECONDS',
        7 * 24 * 3600,
        0,
        365 * 24 * 3600,
      ),
      memoryCacheBytes: integer(env, 'PLACARD_RENDER_URL_CACHE_MB', 64, 0, 1_000_000) * 1024 * 1024,
      maxMegapixels: integer(env, 'PLACARD_RENDER_URL_MAX_MEGAPIXELS', 10, 1, 256),
      perTeamConcurrency: integer(
        env,
        'PLACARD_RENDER_URL_TEAM_CONCURRENCY',
        Math.max(1, os.availableParallelism()),
        1,
        1024,
      ),
      renderTimeoutSeconds: integer(env, 'PLACARD_RENDER_URL_TIMEOUT_SECONDS', 10, 1, 600),
      sourceTimeoutMs: integer(env, 'PLACARD_RENDER_URL_SOURCE_TIMEOUT_MS', 3000, 100, 15_000),
    },
    ...overrides,
  };
  return Object.freeze(config);
}

// The only module that reads process.env. Everything else receives a frozen, typed Config.
import os from 'node:os';
import path from 'node:path';

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
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string } | null;
  role: ProcessRole;
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
  /** Let media and webhook URLs point at private addresses (tests only). */
  allowPrivateUrls: boolean;
  rateLimit: {
    enabled: boolean;
    windowSeconds: number;
    /** Requests per window and team on export routes. */
    exports: number;
    /** Requests per window and team (or client address before sign-in) on every other route. */
    other: number;
  };
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

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Readonly<Config> {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const role = (env.PLACARD_ROLE ?? 'all') as ProcessRole;
  if (!['all', 'api', 'worker'].includes(role)) {
    throw new ConfigError(`PLACARD_ROLE must be all, api or worker, received '${role}'`);
  }
  const s3Endpoint = optional(env, 'S3_ENDPOINT');
  const config: Config = {
    port,
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.PLACARD_DATA_DIR || './data'),
    publicUrl: (env.PLACARD_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    renderThreads: integer(env, 'PLACARD_RENDER_THREADS', Math.max(1, os.availableParallelism()), 1, 256),
    databaseUrl: optional(env, 'DATABASE_URL'),
    redisUrl: optional(env, 'REDIS_URL'),
    s3: s3Endpoint
      ? {
          endpoint: s3Endpoint,
          bucket: env.S3_BUCKET || 'placard',
          region: env.S3_REGION || 'us-east-1',
          accessKeyId: env.S3_ACCESS_KEY_ID || '',
          secretAccessKey: env.S3_SECRET_ACCESS_KEY || '',
        }
      : null,
    role,
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
    queueLimit: integer(env, 'PLACARD_QUEUE_LIMIT', 20_000, 1, 100_000_000),
    allowPrivateUrls: boolean(env, 'PLACARD_ALLOW_PRIVATE_URLS', false),
    rateLimit: {
      enabled: boolean(env, 'PLACARD_RATE_LIMIT', true),
      windowSeconds: 10,
      exports: integer(env, 'PLACARD_RATE_LIMIT_EXPORTS', 15, 1, 1_000_000_000),
      other: integer(env, 'PLACARD_RATE_LIMIT_OTHER', 100, 1, 1_000_000_000),
    },
    ...overrides,
  };
  return Object.freeze(config);
}

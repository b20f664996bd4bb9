// The scaled-out shape (dist/): one `placard serve` with PLACARD_ROLE=api and 1, then 2 `placard worker` processes
// (one render thread each) over PostgreSQL, Redis (BullMQ) and an S3-protocol server (s3rver, started here), beside
// the embedded shape (one `placard serve`: SQLite, the job table, local disk) with 1, then 2 render threads, on the
// same machine in the same run, in rounds of one run of each shape (the first shape alternating; the rates are
// medians of the rounds, and the share is the median of each round's scaled-out rate ÷ its embedded rate). Each run
// submits export-with-changes PNG exports, 16 in flight, each with a headline of its own (no cache hits), rate limits
// on (limits out of reach, as a deployment runs them), and waits for every webhook: exports per second = exports ÷
// (first POST → last webhook).
// Where an export's time goes (issue 21): every process's /metrics is read before and after a run (CPU seconds, SQL
// statements, Redis commands, round trips and busy time, S3 requests and their time), and PostgreSQL's own
// pg_stat_database (transactions, time executing statements) for the bench's database; divided by the exports.
// Needs PostgreSQL and Redis: DATABASE_URL and REDIS_URL, or the machine's defaults (127.0.0.1:5432 user postgres,
// 127.0.0.1:6379). A database and a Redis key prefix of its own, removed afterwards.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { deleteKeysWithPrefix, openRedis } from '../src/storage/redis.js';
import { freePort } from '../test/helpers/ports.js';
import { createTestBucket } from '../test/helpers/s3-server.js';
import { scratchDir } from './scratch.js';
import { printTable } from './table.js';

const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 100);
const CONCURRENCY = 16;
/** Exports before a shape is measured; BENCH_SCALE_WARM_UP. */
const WARM_UP = Number(process.env.BENCH_SCALE_WARM_UP ?? 400);
/** Workers (and the embedded shape's render threads) to measure; BENCH_SCALE_WORKERS, e.g. "2". */
const WORKER_COUNTS = (process.env.BENCH_SCALE_WORKERS ?? '1,2').split(',').map((n) => {
  const count = Number(n);
  if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_SCALE_WORKERS: "${n}" is not a whole number ≥ 1`);
  return count;
});
/** Runs of each shape per worker count and export, in turn; BENCH_SCALE_ROUNDS. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_SCALE_ROUNDS ?? 3));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** "min–max" of the runs, one decimal (one figure when they agree). */
function range(values: number[]): string {
  const [min, max] = [Math.min(...values), Math.max(...values)].map((v) => v.toFixed(1));
  return min === max ? min : `${min}–${max}`;
}

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

async function pgAdmin(connectionString: string, text: string) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

/** User + system CPU of a process (all its threads) in ms, from /proc; null when it is gone or not readable. */
function procCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") "; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** CPU ms of the processes seen in both readings (pid → ms), summed. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, end] of after) ms += end - (before.get(pid) ?? end);
  return ms;
}

/** Resolves each export's webhook arrival time (performance.now()). */
async function webhookReceiver() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).data?.export?.id as string;
      if (arrived.has(id)) return;
      arrived.set(id, at);
      waiting.get(id)?.(at);
      waiting.delete(id);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    wait(id: string): Promise<number> {
      const at = arrived.get(id);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for export ${id} within 120 s`)), 120_000);
        waiting.set(id, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function startProcess(command: 'serve' | 'worker', env: NodeJS.ProcessEnv, publicUrl: string, dir?: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = dir ?? scratchDir(`placard-bench-${command}-`);
  // BENCH_SERVICE_ARGS: node flags of every process started here (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
  const flags = (process.env.BENCH_SERVICE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...flags, 'bin/placard.js', command], {
    env: { ...env, PORT: String(port), PLACARD_PUBLIC_URL: publicUrl || url, PLACARD_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`placard ${command} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    /** Counters of the process's /metrics, summed over their labels. */
    async counters(): Promise<Map<string, number>> {
      const text = await (await fetch(`${url}/metrics`)).text();
      const totals = new Map<string, number>();
      for (const [, name, value] of text.matchAll(/^(placard_[a-z0-9_]+?)(?:\{[^}]*\})? ([0-9.e+-]+|NaN)$/gm)) {
        const n = Number(value);
        if (Number.isFinite(n)) totals.set(name, (totals.get(name) ?? 0) + n);
      }
      return totals;
    },
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

type Process = Awaited<ReturnType<typeof startProcess>>;

const COUNTERS = {
  cpu: 'placard_process_cpu_seconds_total',
  sql: 'placard_sql_statements_total',
  redisCommands: 'placard_redis_commands_total',
  redisTrips: 'placard_redis_round_trips_total',
  redisSeconds: 'placard_redis_seconds_total',
  s3Requests: 'placard_s3_requests_total',
  s3Seconds: 'placard_s3_seconds_total',
} as const;
type Counter = keyof typeof COUNTERS;

/** The counters of each process, summed over the processes of one role. */
async function readCounters(processes: Process[]): Promise<Record<Counter, number>> {
  const all = await Promise.all(processes.map((p) => p.counters()));
  const out = {} as Record<Counter, number>;
  for (const [key, name] of Object.entries(COUNTERS) as [Counter, string][]) {
    out[key] = all.reduce((sum, totals) => sum + (totals.get(name) ?? 0), 0);
  }
  return out;
}

/** A shape to export from: the API, a token, and a template of the banner. */
async function setUp(api: Process, env: NodeJS.ProcessEnv, adminDataDir: string) {
  const credential = JSON.parse(
    execFileSync(
      process.execPath,
      ['bin/placard.js', 'admin', 'create-team', '--name', 'Bench', '--owner-email', 'owner@bench.local'],
      { env: { ...env, PLACARD_DATA_DIR: adminDataDir }, encoding: 'utf8' },
    ),
  ) as { clientId: string; clientSecret: string };
  const { token } = (await (
    await fetch(`${api.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
    })
  ).json()) as { token: string };
  const call = async (method: string, route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${api.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const kit = await call('POST', '/v1/brandkits/create', { name: 'Bench kit' });
  const project = await call('POST', '/v1/projects', { name: 'Bench', brandKitId: kit.response.brandKit.id });
  const banner = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
  // No remote photo: the bench measures rendering and the pipeline, not a media server.
  const elements = banner.sizes[0].slides[0].elements as Json[];
  elements.splice(0, elements.length, ...elements.filter((e) => e.type !== 'image'));
  const template = (
    await call('POST', '/v1/templates/import', {
      projectId: project.response.project.id,
      name: 'Bench banner',
      document: banner,
    })
  ).response.template.id as string;
  return { call, template };
}

export async function benchScale() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  try {
    await pgAdmin(serverUrl, 'select 1');
    const probe = openRedis(redisUrl);
    probe.on('error', () => {});
    await Promise.race([
      probe.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer')), 3_000)),
    ]).finally(() => probe.disconnect());
  } catch (error) {
    console.log(`\n### Scaled out: skipped — needs PostgreSQL and Redis (${(error as Error).message})`);
    return;
  }
  const database = `placard_bench_${randomBytes(4).toString('hex')}`;
  await pgAdmin(serverUrl, `create database ${database}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const prefix = `placard-bench-${randomBytes(4).toString('hex')}`;
  // The AWS SDK's seven-line notice that its releases after January 2027 need Node 22, printed by every process this
  // bench starts, buried its tables. The service itself still prints it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const bucket = await createTestBucket();
  const hooks = await webhookReceiver();
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    PLACARD_JWT_SECRET: randomBytes(24).toString('hex'),
    PLACARD_DEMO: 'false',
    PLACARD_RATE_LIMIT: 'true',
    PLACARD_RATE_LIMIT_EXPORTS: '1000000000',
    PLACARD_RATE_LIMIT_OTHER: '1000000000',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
  };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'S3_ENDPOINT',
    'S3_BUCKET',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
  ]) {
    delete common[name];
  }
  const scaledEnv: NodeJS.ProcessEnv = {
    ...common,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    PLACARD_REDIS_PREFIX: prefix,
    S3_ENDPOINT: bucket.settings.endpoint,
    S3_BUCKET: bucket.settings.bucket,
    S3_ACCESS_KEY_ID: bucket.settings.accessKeyId,
    S3_SECRET_ACCESS_KEY: bucket.settings.secretAccessKey,
    PLACARD_RENDER_THREADS: '1',
  };
  /** PostgreSQL's own count of the bench database's transactions and its time executing statements (ms). */
  const pgStats = async () => {
    // Backends report their statistics when idle, at most once a second.
    await new Promise((r) => setTimeout(r, 1_500));
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        'select xact_commit + xact_rollback as transactions, active_time from pg_stat_database where datname = $1',
        [database],
      );
      // The CPU of the database's server processes (its backends: the pools of the API and the workers) from /proc;
      // a backend that came or went between two readings is counted for the part it was seen.
      const backends = await client.query('select pid from pg_stat_activity where datname = $1', [database]);
      const cpuMs = new Map<number, number>();
      for (const { pid } of backends.rows as { pid: number }[]) {
        const ms = procCpuMs(pid);
        if (ms !== null) cpuMs.set(pid, ms);
      }
      return { transactions: Number(rows[0].transactions), activeMs: Number(rows[0].active_time), cpuMs };
    } finally {
      await client.end();
    }
  };

  /** Redis's own CPU (INFO cpu) in ms: the whole server's, so other clients of a shared Redis count in too. */
  const redisCpuMs = async () => {
    const redis = openRedis(redisUrl);
    try {
      const info = await redis.info('cpu');
      const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
      return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
    } finally {
      await redis.quit();
    }
  };

  let labels = 0;
  async function run(
    shape: { call: (method: string, route: string, body?: unknown) => Promise<Json>; template: string },
    count: number,
    exportSettings?: object,
  ) {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
        while (next < count) {
          next += 1;
          const submitted = performance.now();
          const accepted = await shape.call('POST', '/v1/export-with-changes', {
            templateHash: shape.template,
            type: 'png',
            webhookUrl: hooks.url,
            elementsChanges: [
              { elementName: 'headline', changes: [{ attribute: 'LABEL', value: `Scale ${++labels}` }] },
            ],
            ...(exportSettings ? { exportSettings } : {}),
          });
          latencies.push((await hooks.wait(accepted.response.export.id)) - submitted);
        }
      }),
    );
    return { wallMs: performance.now() - started, latencies: latencies.sort((a, b) => a - b) };
  }

  // The plain banner is cheap to draw, so the shared pipeline dominates; at scale 4 (1200x1000) the render does.
  const scenarios = [
    { name: 'PNG 300x250', settings: undefined },
    { name: 'PNG 300x250 at scale 4 (1200x1000)', settings: { scale: 4 } },
  ];
  const rows: Array<Record<string, string | number>> = [];
  const tiers: Array<Record<string, string | number>> = [];
  const stops: Array<() => Promise<void>> = [];

  /** A shape ready to measure: the API to call, the processes that render (the API itself when embedded). */
  interface Shape {
    label: string;
    setup: Awaited<ReturnType<typeof setUp>>;
    api: Process;
    workers: Process[];
    withPg: boolean;
  }
  /** What one shape spent over its runs of the 300x250 scenario, summed, for the table of where an export goes. */
  interface Spent {
    exports: number;
    wallMs: number;
    api: Record<Counter, number>;
    workers: Record<Counter, number>;
    pgTransactions: number;
    pgActiveMs: number;
    pgCpuMs: number;
    redisCpuMs: number;
    benchCpuMs: number;
    loads: number[];
  }
  const zeroCounters = () => Object.fromEntries(Object.keys(COUNTERS).map((k) => [k, 0])) as Record<Counter, number>;
  const newSpent = (): Spent => ({
    exports: 0,
    wallMs: 0,
    api: zeroCounters(),
    workers: zeroCounters(),
    pgTransactions: 0,
    pgActiveMs: 0,
    pgCpuMs: 0,
    redisCpuMs: 0,
    benchCpuMs: 0,
    loads: [],
  });

  /** One run of a scenario on a shape: its rate and p50; what the 300x250 scenario spent is added to `spent`. */
  async function measureRun(shape: Shape, scenario: (typeof scenarios)[number], spent: Spent) {
    const counted = !scenario.settings;
    const { api, workers, withPg } = shape;
    const before = counted ? { api: await readCounters([api]), workers: await readCounters(workers) } : null;
    const pgBefore = counted && withPg ? await pgStats() : null;
    const redisBefore = counted && withPg ? await redisCpuMs() : null;
    const benchBefore = process.cpuUsage();
    const result = await run(shape.setup, EXPORTS, scenario.settings);
    const benchCpu = process.cpuUsage(benchBefore);
    const load = os.loadavg()[0];
    const rate = EXPORTS / (result.wallMs / 1000);
    const p50 = result.latencies[Math.floor(result.latencies.length / 2)];
    if (before) {
      const redisAfter = redisBefore !== null ? await redisCpuMs() : null;
      const after = { api: await readCounters([api]), workers: await readCounters(workers) };
      const pgAfter = pgBefore ? await pgStats() : null;
      for (const key of Object.keys(COUNTERS) as Counter[]) {
        spent.api[key] += after.api[key] - before.api[key];
        spent.workers[key] += after.workers[key] - before.workers[key];
      }
      if (pgBefore && pgAfter) {
        spent.pgTransactions += pgAfter.transactions - pgBefore.transactions;
        spent.pgActiveMs += pgAfter.activeMs - pgBefore.activeMs;
        spent.pgCpuMs += cpuBetween(pgBefore.cpuMs, pgAfter.cpuMs);
      }
      if (redisBefore !== null && redisAfter !== null) spent.redisCpuMs += redisAfter - redisBefore;
      spent.benchCpuMs += (benchCpu.user + benchCpu.system) / 1000;
      spent.exports += EXPORTS;
      spent.wallMs += result.wallMs;
      spent.loads.push(load);
    }
    return { rate, p50, load };
  }

  function tierOf(shape: Shape, spent: Spent): Record<string, string | number> {
    const n = spent.exports;
    const per = (side: 'api' | 'workers', key: Counter, scale = 1) => (spent[side][key] * scale) / n;
    const both = (key: Counter, scale = 1) =>
      per('api', key, scale) + (shape.workers.length ? per('workers', key, scale) : 0);
    const pg = shape.withPg;
    const cpu = {
      api: per('api', 'cpu', 1000),
      workers: shape.workers.length ? per('workers', 'cpu', 1000) : 0,
      pg: pg ? spent.pgCpuMs / n : 0,
      redis: pg ? spent.redisCpuMs / n : 0,
      bench: spent.benchCpuMs / n,
    };
    return {
      shape: shape.label,
      'API CPU ms': cpu.api,
      'worker CPU ms': shape.workers.length ? cpu.workers : '(in API)',
      'SQL statements': both('sql'),
      'PG transactions': pg ? spent.pgTransactions / n : '—',
      'PG executing ms': pg ? spent.pgActiveMs / n : '—',
      'PG CPU ms': pg ? cpu.pg : '—',
      'Redis server CPU ms': pg ? cpu.redis : '—',
      'bench CPU ms (client, webhooks, s3rver)': cpu.bench,
      'all CPU ms': cpu.api + cpu.workers + cpu.pg + cpu.redis + cpu.bench,
      'Redis commands (API + workers)': `${per('api', 'redisCommands').toFixed(1)} + ${per('workers', 'redisCommands').toFixed(1)}`,
      'Redis round trips': both('redisTrips'),
      'Redis busy ms': both('redisSeconds', 1000),
      'S3 requests': both('s3Requests'),
      'S3 ms': both('s3Seconds', 1000),
      'wall ms per export (1 ÷ rate)': spent.wallMs / n,
      load: range(spent.loads),
    };
  }

  try {
    // The scaled-out API serves both worker counts; each count gets an embedded process with as many render threads.
    const scaledApi = await startProcess('serve', { ...scaledEnv, PLACARD_ROLE: 'api' }, '');
    stops.push(scaledApi.stop);
    const scaledSetup = await setUp(scaledApi, scaledEnv, os.tmpdir());
    for (const count of WORKER_COUNTS) {
      const dataDir = scratchDir('placard-bench-embedded-');
      const env = { ...common, PLACARD_RENDER_THREADS: String(count) };
      execFileSync(process.execPath, ['bin/placard.js', 'migrate'], {
        env: { ...env, PLACARD_DATA_DIR: dataDir },
        stdio: 'ignore',
      });
      const embeddedApi = await startProcess('serve', env, '', dataDir);
      const workers = await Promise.all(
        Array.from({ length: count }, () => startProcess('worker', scaledEnv, scaledApi.url)),
      );
      try {
        const embedded: Shape = {
          label: 'embedded',
          setup: await setUp(embeddedApi, env, dataDir),
          api: embeddedApi,
          workers: [],
          withPg: false,
        };
        const scaled: Shape = {
          label: `scaled out, ${count} worker${count > 1 ? 's' : ''}`,
          setup: scaledSetup,
          api: scaledApi,
          workers,
          withPg: true,
        };
        // Warm-up, as the exports bench's: render threads started, fonts loaded, and the export path optimised by V8
        // in every process. With 4–8 exports, the scaled-out shape's three cold processes were measured before V8 had
        // optimised their S3, PostgreSQL and BullMQ code (stop 28, one worker: 32 exports/s after 4 exports of
        // warm-up, 40 after 400).
        await run(embedded.setup, WARM_UP);
        await run(scaled.setup, WARM_UP);
        // Rounds of one run per shape, the first shape alternating, and each round's scaled-out rate divided by the
        // embedded rate measured beside it: this machine's speed drifted by a quarter between runs minutes apart
        // (stop 31), which one run of each shape in sequence took for a difference between the shapes.
        const spent = new Map<Shape, Spent>([
          [embedded, newSpent()],
          [scaled, newSpent()],
        ]);
        for (const scenario of scenarios) {
          const runs = new Map<Shape, Array<{ rate: number; p50: number; load: number }>>([
            [embedded, []],
            [scaled, []],
          ]);
          for (let round = 0; round < ROUNDS; round++) {
            for (const shape of round % 2 === 0 ? [embedded, scaled] : [scaled, embedded]) {
              runs.get(shape)?.push(await measureRun(shape, scenario, spent.get(shape) as Spent));
            }
          }
          const embeddedRuns = runs.get(embedded) ?? [];
          const shares = (runs.get(scaled) ?? []).map((r, i) => r.rate / embeddedRuns[i].rate);
          for (const shape of [embedded, scaled]) {
            const measured = runs.get(shape) ?? [];
            rows.push({
              export: scenario.name,
              shape: shape.label,
              'render threads': count,
              exports: `${ROUNDS} × ${EXPORTS}`,
              'exports/s (median)': median(measured.map((r) => r.rate)),
              'exports/s (runs)': range(measured.map((r) => r.rate)),
              'p50 submit → webhook ms (median)': Math.round(median(measured.map((r) => r.p50))),
              load: range(measured.map((r) => r.load)),
              'of embedded (median of rounds)': shape === embedded ? '100%' : `${Math.round(median(shares) * 100)}%`,
              'of embedded (rounds)':
                shape === embedded ? '—' : shares.map((share) => `${Math.round(share * 100)}%`).join(' '),
            });
          }
        }
        for (const shape of [embedded, scaled]) tiers.push(tierOf(shape, spent.get(shape) as Spent));
      } finally {
        await Promise.all([embeddedApi, ...workers].map((p) => p.stop()));
      }
    }
    printTable(
      `Scaled out (1 API + N workers: PostgreSQL, Redis/BullMQ, s3rver) vs embedded (1 process, N render threads), this machine, ${os.availableParallelism()} cores, export-with-changes, ${CONCURRENCY} in flight`,
      rows,
    );
    printTable('Where one export goes (PNG 300x250, per export, counted by each process and by PostgreSQL)', tiers);
    console.log(
      [
        '',
        '- every process runs on this one machine: the API, the workers, PostgreSQL, Redis and s3rver share its cores,',
        '  so the second worker adds a render thread but competes with the rest for CPU; `load` is the 1-minute load',
        '  average at the end of each run (other work on the machine skews the figures).',
        '- Redis round trips: waits that begin on an idle connection (commands sent together share one); busy ms: time',
        '  a connection had an answer outstanding. S3 ms: time from request to answer. PG executing ms: PostgreSQL`s',
        '  active_time of the database. They overlap one another and other exports (16 in flight), so they say where',
        '  time goes, not how it adds up to the wall time.',
        '- CPU ms are counted, not timed: API and worker CPU from each process, PG CPU from /proc of the bench',
        "  database's backends, Redis server CPU from INFO (the whole server: other users of a shared Redis count in),",
        '  bench CPU is this process: the HTTP client, the webhook receiver and, scaled out, s3rver. On two busy cores',
        '  their sum per export (all CPU ms) is what bounds exports/s: embedded all CPU ÷ scaled out all CPU is the',
        '  share of the embedded rate the scaled-out shape can reach on two cores that nothing else uses.',
      ].join('\n'),
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await hooks.close();
    const redis = openRedis(redisUrl);
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    await bucket.remove();
    await pgAdmin(serverUrl, `drop database if exists ${database} with (force)`);
  }
}

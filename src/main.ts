// The `placard` command: serve | worker | migrate | admin create-team | admin create-credential | render.
// Reads the configuration, starts what was asked for, and stops cleanly on SIGTERM/SIGINT.
// Only the configuration is imported up front: each command imports what it runs, so that `placard render` never
// loads the HTTP server, the database drivers, the queues or the AWS SDK (issue 21: 1.5 s → a cold start near
// Node's own; test/cli/render-imports.test.ts lists what a render loads).
// First of all: Skia's allocator reads its options when the native library loads (render/native-memory.ts).
import './render/native-memory.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';

const USAGE = `usage: placard <command>

  serve                                   API and render workers (default)
  worker                                  job workers only, health and metrics on PORT (scaled-out shape)
  migrate                                 apply database migrations and exit
  admin create-team --name N --owner-email E [--owner-name M]
  admin create-credential --email E [--team-id T]
  render <document.json> --format F --out P [options]
                                          render a design document locally, no server (render --help)
  preflight <document.json> [options]     check a design document for overflow, missing glyphs, low resolution,
                                          contrast; exit 1 on errors (preflight --help)

Configuration comes from the environment (PORT, HOST, PLACARD_DATA_DIR, DATABASE_URL, ...; see README).`;

function fail(message: string, status = 2): never {
  process.stderr.write(`placard: ${message}\n`);
  process.exit(status);
}

/**
 * `serve` runs PLACARD_ROLE (all by default, or api); `worker` is role worker: it runs the jobs and listens on PORT
 * for /healthz, /readyz and /metrics only. SIGTERM lets running jobs finish for PLACARD_STOP_GRACE_SECONDS and hands
 * the others back to the queue.
 */
async function serve(asWorker = false) {
  const config = asWorker ? loadConfig(process.env, { role: 'worker' }) : loadConfig();
  if (asWorker && !config.databaseUrl) {
    fail('placard worker needs DATABASE_URL (PostgreSQL) and REDIS_URL: workers share the database and the queue');
  }
  const [{ openRuntime }, { buildApp }, { seedDemoIfEmpty }, { startBanner }, { abandonRedis }] = await Promise.all([
    import('./runtime.js'),
    import('./app.js'),
    import('./cli/demo.js'),
    import('./cli/banner.js'),
    import('./storage/redis.js'),
  ]);
  const runtime = await openRuntime(config);
  const app = await buildApp(runtime);
  if (config.role !== 'worker') {
    const demo = config.demo ? await seedDemoIfEmpty(app, runtime.db, config.dataDir) : null;
    if (demo) {
      app.log.info({ file: demo.file, projectId: demo.projectId, designs: demo.designHashes }, 'created the demo team');
    }
    const demoFile = path.join(config.dataDir, 'demo-credentials.json');
    process.stdout.write(
      startBanner({
        publicUrl: config.publicUrl,
        demo,
        demoFile: config.demo && fs.existsSync(demoFile) ? demoFile : null,
      }),
    );
  }
  await app.listen({ port: config.port, host: config.host });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // Past the grace, the queue hands back what still runs; a stop stuck beyond that (a hung connection) exits anyway.
    const limitMs = config.stopGraceSeconds * 1000 + 5_000;
    const force = setTimeout(() => {
      app.log.error(`graceful stop took longer than ${limitMs / 1000} s; exiting`);
      process.exit(1);
    }, limitMs);
    force.unref();
    // Commands wait for a Redis that is down (maxRetriesPerRequest: null, for BullMQ), and so does every request in
    // flight that made one: without Redis there is nothing to finish, so fail them now rather than wait out the limit.
    if (runtime.redis && runtime.redis.status !== 'ready') {
      app.log.warn({ redis: runtime.redis.status }, 'stopping: Redis is unreachable; requests waiting for it fail now');
      abandonRedis(runtime.redis, 'Redis is unreachable and the process is stopping');
    }
    await app.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

async function migrate() {
  const { openRuntime } = await import('./runtime.js');
  const runtime = await openRuntime(loadConfig());
  await runtime.close();
  process.stdout.write('migrations applied\n');
}

async function admin(args: string[]) {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      'owner-email': { type: 'string' },
      'owner-name': { type: 'string' },
      email: { type: 'string' },
      'team-id': { type: 'string' },
    },
    strict: true,
  });
  const [{ openRuntime }, { createTeamService }] = await Promise.all([
    import('./runtime.js'),
    import('./services/team.service.js'),
  ]);
  const runtime = await openRuntime(loadConfig());
  const teams = createTeamService(runtime.db.kysely);
  try {
    if (action === 'create-team') {
      if (!values.name || !values['owner-email']) fail('admin create-team needs --name and --owner-email');
      const created = await teams.createTeam({
        name: values.name,
        ownerEmail: values['owner-email'],
        ownerName: values['owner-name'],
      });
      process.stdout.write(`${JSON.stringify(created)}\n`);
    } else if (action === 'create-credential') {
      if (!values.email) fail('admin create-credential needs --email');
      const teamId = values['team-id'] === undefined ? undefined : Number(values['team-id']);
      if (teamId !== undefined && !Number.isSafeInteger(teamId)) fail('--team-id must be an integer');
      process.stdout.write(`${JSON.stringify(await teams.createCredentialForEmail(values.email, teamId))}\n`);
    } else {
      fail(`unknown admin command '${action ?? ''}'\n${USAGE}`);
    }
  } catch (error) {
    fail((error as Error).message, 1);
  } finally {
    await runtime.close();
  }
}

export async function main(argv: string[]) {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve();
      case 'migrate':
        return await migrate();
      case 'admin':
        return await admin(rest);
      case 'render': {
        // Imported here: the renderer (Skia, libvips) costs the other commands nothing. A build has it in one file
        // (scripts/bundle-cli.mjs), which spares ~470 module loads of a cold start, run with a code cache
        // (cli/bundle-loader.ts); from sources (tsx) it is the module.
        type RenderModule = typeof import('./cli/render.js');
        const bundle = fileURLToPath(new URL('./cli/bundle/render.cjs', import.meta.url));
        const loaded = fs.existsSync(bundle)
          ? (await import('./cli/bundle-loader.js')).loadBundle<RenderModule>(bundle)
          : { exports: (await import('./cli/render.js')) as RenderModule, saveCache() {} };
        const { RENDER_USAGE, runRender } = loaded.exports;
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(`${RENDER_USAGE}\n`);
          return;
        }
        // The render needs no database; only PLACARD_ALLOW_PRIVATE_URLS of the configuration applies.
        const config = loadConfig();
        const status = await runRender(rest, {
          allowPrivateUrls: config.allowPrivateUrls,
          allowedPrivateHosts: config.allowedPrivateHosts,
          ffmpegPath: config.ffmpegPath,
        });
        loaded.saveCache();
        return process.exit(status);
      }
      case 'preflight': {
        const { PREFLIGHT_USAGE, runPreflight } = await import('./cli/preflight.js');
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(`${PREFLIGHT_USAGE}\n`);
          return;
        }
        return process.exit(await runPreflight(rest, { allowPrivateUrls: loadConfig().allowPrivateUrls }));
      }
      case 'worker':
        return await serve(true);
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return;
      default:
        fail(`unknown command '${command}'\n${USAGE}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    if ((error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') fail((error as Error).message);
    throw error;
  }
}

await main(process.argv.slice(2));

// The `placard` command: serve | worker | migrate | admin create-team | admin create-credential | render.
// Reads the configuration, starts what was asked for, and stops cleanly on SIGTERM/SIGINT.
import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { seedDemoIfEmpty } from './cli/demo.js';
import { ConfigError, loadConfig } from './config.js';
import { openRuntime } from './runtime.js';
import { createTeamService } from './services/team.service.js';

const USAGE = `usage: placard <command>

  serve                                   API and render workers (default)
  worker                                  job workers only, health and metrics on PORT (scaled-out shape)
  migrate                                 apply database migrations and exit
  admin create-team --name N --owner-email E [--owner-name M]
  admin create-credential --email E [--team-id T]
  render <document.json> --format F --out P [options]
                                          render a design document locally, no server (render --help)

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
  const runtime = await openRuntime(config);
  const app = await buildApp(runtime);
  if (config.demo && config.role !== 'worker') {
    const demo = await seedDemoIfEmpty(app, runtime.db, config.dataDir);
    if (demo) {
      app.log.info({ file: demo.file, projectId: demo.projectId, designs: demo.designHashes }, 'created the demo team');
      process.stdout.write(
        `\nDemo team created. Open ${config.publicUrl}/ and sign in as ${demo.email} with the password ${demo.password}\n` +
          `API credential (shown once; both are written to ${demo.file}):\n` +
          `  clientId:     ${demo.clientId}\n  clientSecret: ${demo.clientSecret}\n` +
          `Get a token: curl -s -X POST ${config.publicUrl}/v1/auth/token -H 'Content-Type: application/json' ` +
          `-d '{"clientId":"${demo.clientId}","clientSecret":"${demo.clientSecret}"}'\n\n`,
      );
    }
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
    await app.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

async function migrate() {
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
        // Imported here: the renderer (Skia, libvips) costs the other commands nothing.
        const { RENDER_USAGE, runRender } = await import('./cli/render.js');
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(`${RENDER_USAGE}\n`);
          return;
        }
        // The render needs no database; only PLACARD_ALLOW_PRIVATE_URLS of the configuration applies.
        const config = loadConfig();
        return process.exit(
          await runRender(rest, { allowPrivateUrls: config.allowPrivateUrls, ffmpegPath: config.ffmpegPath }),
        );
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

// buildApp(deps): the Fastify application with every plugin and route. Importing this module has no side effects;
// main.ts (and tests) construct the dependencies and decide when to listen.
import fs from 'node:fs';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { createWebhookDeliveries } from './events/deliveries.js';
import { html } from './formats/html5/index.js';
import type { RenderPool } from './formats/pool.js';
import { jsonBodyParser } from './http/json-body.js';
import { authPlugin } from './http/plugins/auth.js';
import { clientErrors, errorHandlerPlugin, frameworkErrors } from './http/plugins/error-handler.js';
import { type IdempotencyStore, idempotencyPlugin } from './http/plugins/idempotency.js';
import {
  createMetrics,
  exportWaitGauges,
  type Metrics,
  metricsPlugin,
  queueDepthGauge,
  roundTripCounters,
  sqlStatementsCounter,
} from './http/plugins/metrics.js';
import { openapiPlugin } from './http/plugins/openapi.js';
import type { RateLimiter } from './http/plugins/rate-limit.js';
import { genReqId, requestIdPlugin } from './http/plugins/request-id.js';
import { sessionPlugin } from './http/plugins/session.js';
import { strictRoutesPlugin } from './http/plugins/strict-routes.js';
import { adNetworksRoutes } from './http/routes/ad-networks.js';
import { apiCredentialsRoutes } from './http/routes/api-credentials.js';
import { authRoutes } from './http/routes/auth.js';
import { avatarRoutes } from './http/routes/avatars.js';
import { batchesRoutes } from './http/routes/batches.js';
import { brandFontsRoutes } from './http/routes/brand-fonts.js';
import { brandKitAssetsRoutes } from './http/routes/brand-kit-assets.js';
import { brandKitsRoutes } from './http/routes/brand-kits.js';
import { designVersionsRoutes } from './http/routes/design-versions.js';
import { exportsRoutes } from './http/routes/exports.js';
import { filesRoutes } from './http/routes/files.js';
import { foldersRoutes } from './http/routes/folders.js';
import { healthRoutes } from './http/routes/health.js';
import { preflightRoutes } from './http/routes/preflight.js';
import { projectUsersRoutes } from './http/routes/project-users.js';
import { projectsRoutes } from './http/routes/projects.js';
import { renderUrlsRoutes } from './http/routes/render-urls.js';
import { sessionRoutes } from './http/routes/sessions.js';
import { shareCommentsRoutes } from './http/routes/share-comments.js';
import { shareLinksRoutes } from './http/routes/share-links.js';
import { studioRoutes } from './http/routes/studio.js';
import { studioCanvasRoutes } from './http/routes/studio-canvas.js';
import { studioPreflightRoutes } from './http/routes/studio-preflight.js';
import { templatesRoutes } from './http/routes/templates.js';
import { thumbnailsRoutes } from './http/routes/thumbnails.js';
import { usersRoutes } from './http/routes/users.js';
import { webhooksRoutes } from './http/routes/webhooks.js';
import type { App } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { createAcceptedExports } from './jobs/accepted-exports.js';
import { createBatchProcessor } from './jobs/batch.processor.js';
import { createExportProcessor } from './jobs/export.processor.js';
import { teamGroup } from './jobs/fair.js';
import { JOB_KINDS, type JobQueue, thumbnailJobId } from './jobs/job-queue.js';
import { registerThumbnailJobs } from './jobs/thumbnail.processor.js';
import { createUrlGuard } from './net/url-guard.js';
import { type AssetFetcher, createAssetFetcher } from './render/media/assets.js';
import { createFontFetcher, type FontFetcher } from './render/media/font-fetch.js';
import { catalogueFonts } from './render/text/fonts.js';
import { createAccess } from './services/access.js';
import { createAdNetworkService } from './services/ad-network.service.js';
import { createAssetService } from './services/asset.service.js';
import { createAssetProcessor } from './services/asset-processor.js';
import { createAuthService } from './services/auth.service.js';
import { createBatchService } from './services/batch.service.js';
import { fetchRowSource } from './services/batch-source.js';
import { createBrandKitService } from './services/brand-kit.service.js';
import { createCredentialService } from './services/credential.service.js';
import { createDeliveryService } from './services/delivery.service.js';
import { createDesignService } from './services/design.service.js';
import { createDesignVersionService } from './services/design-version.service.js';
import { createExportService } from './services/export.service.js';
import { createExportWait } from './services/export-wait.js';
import { createFolderService } from './services/folder.service.js';
import { createFontService } from './services/font.service.js';
import { createPreflightService } from './services/preflight.service.js';
import { createProjectService } from './services/project.service.js';
import { createRenderGate } from './services/render-gate.js';
import { createRenderUrlService } from './services/render-url.service.js';
import { createSessionService, type SessionService } from './services/session.service.js';
import { createShareCommentService } from './services/share-comment.service.js';
import { createShareLinkService } from './services/share-link.service.js';
import { createStudioCanvasService } from './services/studio-canvas.service.js';
import { createThumbnails } from './services/thumbnail.js';
import { createUserService } from './services/user.service.js';
import { createWebhookService } from './services/webhook.service.js';
import type { BlobStore } from './storage/blobs/blob-store.js';
import type { Db } from './storage/db/database.js';
import { createAdNetworkRepository } from './storage/db/repositories/ad-networks.repository.js';
import { createBrandKitRepository } from './storage/db/repositories/brand-kits.repository.js';
import { createCredentialRepository } from './storage/db/repositories/credentials.repository.js';
import { createDeliveryRepository } from './storage/db/repositories/deliveries.repository.js';
import { createDesignRepository } from './storage/db/repositories/designs.repository.js';
import { createExportRepository } from './storage/db/repositories/exports.repository.js';
import { createFolderRepository } from './storage/db/repositories/folders.repository.js';
import { createMediaRepository } from './storage/db/repositories/media.repository.js';
import { createProjectRepository } from './storage/db/repositories/projects.repository.js';
import { createRenderUrlRepository } from './storage/db/repositories/render-urls.repository.js';
import { createUserRepository } from './storage/db/repositories/users.repository.js';
import { createWebhookRepository } from './storage/db/repositories/webhooks.repository.js';
import type { ServerKeys } from './storage/secrets.js';

export interface AppDeps {
  config: Readonly<Config>;
  db: Db;
  keys: ServerKeys;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  blobs: BlobStore;
  /** Render threads: exports and thumbnails render there, off the event loop. */
  renderPool: RenderPool;
  /** Background jobs: exports, deliveries, thumbnails, asset fetches. Started where jobs run, stopped on close. */
  jobs: JobQueue;
  /** Redis of the scaled-out shape: GET /readyz checks it. */
  redis?: { ping(): Promise<unknown> } | null;
  /** Waits between webhook delivery attempts. Default SPEC §8 (10 s … 6 h); tests shorten them. */
  webhookRetryDelaysMs?: readonly number[];
  /** Fastify logger options; false silences it (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Fetches brand kit asset sources. Default: the guarded fetcher, without its cache (an upload wants fresh bytes). */
  assetFetcher?: Pick<AssetFetcher, 'fetch'>;
  /** Fetches brand font sources. Default: the guarded font fetcher. */
  fontFetcher?: FontFetcher;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Studio sign-in (the demo Owner's password is set through it on first start); API roles only. */
    sessions: SessionService;
  }
}

/** A batch row's design was made by an earlier run of its job: the import rolls back. */
class DesignMadeBefore extends Error {}

const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Builds the process of PLACARD_ROLE: `api` serves HTTP and only enqueues; `worker` runs the jobs and serves nothing
 * but health and metrics (no API plugin, no route, no service of the API is built); `all` (the embedded default) does
 * both. Each part is one wiring function below.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const { app, metrics, isClosing } = createServer(deps);
  const storage = wireStorage(deps.db);
  const shared = wireShared(deps, storage);
  const background = wireBackground(deps, storage, shared, metrics, app.log);
  healthRoutes(app, { metrics, isClosing, checks: readinessChecks(deps) });
  if (config.role !== 'api') runBackground(app, deps, shared, background);
  if (config.role !== 'worker') await serveApi(app, deps, storage, shared, background, metrics);
  return app;
}

/** Fastify with what every role answers with: request ids, the error envelope, metrics, the 503 while stopping. */
function createServer(deps: AppDeps): { app: App; metrics: Metrics; isClosing: () => boolean } {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    genReqId,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: 1024 * 1024,
    // We answer 503 ourselves, in the error envelope, while shutting down.
    return503OnClosing: false,
    // A hop count is given to Fastify as the function proxy-addr calls per hop: Fastify 5 turns a bare number into
    // "trust nothing", because the peer then is not checked. Safe only when clients reach the service through the
    // balancer alone (docs/deploy.md); a list of the balancer's addresses is the stricter choice.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    frameworkErrors,
    clientErrorHandler: clientErrors,
  }).withTypeProvider() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  // Bodies are JSON or nothing (SPEC §1): without a text/plain parser Fastify answers 415 for anything else.
  app.removeContentTypeParser('text/plain');
  jsonBodyParser(app);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A keep-alive connection whose response was under way when the stop began would hold close() open until its
  // keep-alive timeout (72 s): once stopping, every response closes its connection. Hooks that every request runs and
  // that never wait are callback hooks: an async one costs a promise and a microtask turn per request (issue 21).
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(
      new AppError('UNAVAILABLE', 'the service is shutting down; retry shortly', {
        headers: { 'Retry-After': '5' },
      }),
    );
  });
  const metrics = createMetrics();
  sqlStatementsCounter(metrics, () => deps.db.statements());
  roundTripCounters(metrics);
  requestIdPlugin(app);
  const strictRoutes = strictRoutesPlugin(app);
  errorHandlerPlugin(app, { allowedMethods: strictRoutes.allowedMethods });
  metricsPlugin(app, { metrics });
  return { app, metrics, isClosing: () => closing };
}

function readinessChecks(deps: AppDeps) {
  return [
    { name: 'database', check: () => deps.db.ping() },
    {
      name: 'queue',
      check: async () => {
        await deps.jobs.depth();
      },
    },
    { name: 'storage', check: () => deps.blobs.ping() },
    ...(deps.redis ? [{ name: 'redis', check: async () => void (await deps.redis?.ping()) }] : []),
  ];
}

/** The repositories over the database, built once and shared by services and background work. */
function wireStorage(db: Db) {
  return {
    users: createUserRepository(db.kysely),
    credentials: createCredentialRepository(db.kysely),
    brandKits: createBrandKitRepository(db.kysely),
    projects: createProjectRepository(db.kysely),
    folders: createFolderRepository(db.kysely, db.dialect),
    designs: createDesignRepository(db.kysely, db.dialect),
    media: createMediaRepository(db.kysely),
  };
}
type Storage = ReturnType<typeof wireStorage>;

/** What both the API and the background work use: visibility rules and thumbnails. */
function wireShared(deps: AppDeps, storage: Storage) {
  const access = createAccess(storage);
  // Team brand fonts: the API lists and stores them, exports, thumbnails and share previews draw with them.
  const fonts = createFontService({
    db: deps.db.kysely,
    access,
    blobs: deps.blobs,
    fetcher:
      deps.fontFetcher ??
      createFontFetcher({
        allowPrivateUrls: deps.config.allowPrivateUrls,
        allowedPrivateHosts: deps.config.allowedPrivateHosts,
      }),
    readFont: (bytes, fileName, teamId) => deps.renderPool.readFont(bytes, fileName, { group: teamGroup(teamId) }),
  });
  const thumbnails = createThumbnails(deps.blobs, {
    pool: deps.renderPool,
    budgetMs: deps.config.renderTimeouts.stillSeconds * 1000,
    brandFonts: fonts.preparer,
    pendingLinks: { publicUrl: deps.config.publicUrl, keys: deps.keys },
  });
  const links = { blobs: deps.blobs, ttlSeconds: deps.config.urlTtlSeconds };
  return { access, thumbnails, links, fonts };
}
type Shared = ReturnType<typeof wireShared>;

/**
 * The background work, all on the JobQueue: webhook deliveries, export rendering, design thumbnails, brand kit asset
 * fetching. Built in every role, because an API process enqueues deliveries and assets; registered and started only
 * where jobs run (runBackground).
 */
function wireBackground(deps: AppDeps, storage: Storage, shared: Shared, metrics: Metrics, log: App['log']) {
  const { config, db } = deps;
  const webhookDeliveries = createWebhookDeliveries({
    db: db.kysely,
    queue: deps.jobs,
    allowPrivateUrls: config.allowPrivateUrls,
    allowedPrivateHosts: config.allowedPrivateHosts,
    retryDelaysMs: deps.webhookRetryDelaysMs,
    thread: true,
    linkDatabase: db.link,
    onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
    log,
  });
  // Where this process renders, the exports it accepts go to their render jobs without being read back.
  const acceptedExports = config.role === 'api' ? undefined : createAcceptedExports();
  const exportProcessor = createExportProcessor({
    db: db.kysely,
    accepted: acceptedExports,
    queue: deps.jobs,
    pool: deps.renderPool,
    blobs: deps.blobs,
    links: shared.links,
    deliveries: webhookDeliveries,
    thumbnails: shared.thumbnails,
    brandFonts: shared.fonts.preparer,
    setMissingThumbnail: (hash, key) => storage.designs.setMissingThumbnailByHash(hash, key),
    thumbnailLater: async (hash) => {
      const design = await storage.designs.missingThumbnailByHash(hash);
      if (!design) return;
      const payload = { designId: design.id, revision: design.revision };
      await deps.jobs.enqueue('design.thumbnail', payload, { jobId: thumbnailJobId(design.id, design.revision) });
    },
    stillBudgetMs: config.renderTimeouts.stillSeconds * 1000,
    videoBudgetMs: config.renderTimeouts.videoSeconds * 1000,
    onRendered: (format, seconds) => metrics.renderSeconds.observe({ format }, seconds),
    onFinished: (type, status) => metrics.exportsFinished.inc({ type, status }),
    log,
  });
  const assetFetcher =
    deps.assetFetcher ??
    createAssetFetcher({
      allowPrivateUrls: config.allowPrivateUrls,
      allowedPrivateHosts: config.allowedPrivateHosts,
      cacheBytes: 0,
    });
  const assetProcessor = createAssetProcessor({
    db: db.kysely,
    queue: deps.jobs,
    blobs: deps.blobs,
    fetcher: assetFetcher,
    urlTtlSeconds: config.urlTtlSeconds,
    log,
  });
  // createDesigns of batches: each row's design is imported as its creator would (their role at the time of the run).
  const batchDesigns = createDesignService({
    db: db.kysely,
    dialect: db.dialect,
    access: shared.access,
    thumbnails: shared.thumbnails,
    queue: deps.jobs,
  });
  // Batches (issue 22): a team's rows in flight are bounded (config.batchRowsInFlight); each settled row hands over
  // the next ones, and the render pool's turns by team keep other teams' exports moving beside a long batch.
  const batchProcessor = createBatchProcessor({
    db: db.kysely,
    dialect: db.dialect,
    queue: deps.jobs,
    pool: deps.renderPool,
    blobs: deps.blobs,
    links: shared.links,
    deliveries: webhookDeliveries,
    brandFonts: shared.fonts.preparer,
    fonts: shared.fonts,
    rowsInFlight: config.batchRowsInFlight,
    createDesign: async (batch, row, document, claim) => {
      const user = await storage.users.findById(batch.team_id, batch.created_by);
      if (!user) {
        throw new AppError('FORBIDDEN', `createDesigns: the user who started batch ${batch.id} no longer exists`);
      }
      const actor = { userId: user.id, teamId: batch.team_id, roleId: user.role_id, name: user.name, credentialId: 0 };
      const general = JSON.parse(batch.general_settings) as {
        projectId: number;
        newDesignFolderId?: number;
        newDesignName?: string;
        fileStem: string;
      };
      const name = `${general.newDesignName?.trim() || general.fileStem} – ${row.key}`.slice(0, 200);
      let made: { designId: number; revision: number } | null = null;
      try {
        await batchDesigns.importDesign(
          actor,
          { projectId: general.projectId, folderId: general.newDesignFolderId, name, apiGenerated: true, document },
          {
            thumbnail: 'later',
            within: async (tx, created) => {
              if (!(await claim(tx, created.row.hash))) throw new DesignMadeBefore();
              made = { designId: created.row.id, revision: created.row.revision };
            },
          },
        );
      } catch (error) {
        if (!(error instanceof DesignMadeBefore)) throw error;
      }
      // Drawn off the row's job, as for the designs of export-with-changes.
      if (made) await deps.jobs.enqueue('design.thumbnail', made);
    },
    stillBudgetMs: config.renderTimeouts.stillSeconds * 1000,
    videoBudgetMs: config.renderTimeouts.videoSeconds * 1000,
    log,
  });
  queueDepthGauge(metrics, (kind) => deps.jobs.depth([kind]), JOB_KINDS);
  return { webhookDeliveries, exportProcessor, assetProcessor, batchProcessor, acceptedExports };
}
type Background = ReturnType<typeof wireBackground>;

/** Where jobs run: handlers registered, then the queue, the recovery sweeps and the outbox dispatcher started. */
function runBackground(
  app: App,
  deps: AppDeps,
  shared: Shared,
  { webhookDeliveries, exportProcessor, assetProcessor, batchProcessor }: Background,
) {
  webhookDeliveries.register();
  exportProcessor.register();
  batchProcessor.register();
  assetProcessor.register();
  registerThumbnailJobs({
    db: deps.db.kysely,
    dialect: deps.db.dialect,
    queue: deps.jobs,
    thumbnails: shared.thumbnails,
  });
  // The recovery sweeps and the outbox dispatcher only enqueue, by idempotent job ids.
  app.addHook('onReady', async () => {
    await deps.jobs.start();
    await exportProcessor.start();
    await batchProcessor.start();
    await assetProcessor.start();
    webhookDeliveries.start();
  });
  // Stops taking work, lets running renders finish (the queue hands back what does not finish in time).
  app.addHook('onClose', async () => {
    exportProcessor.stop();
    batchProcessor.stop();
    await webhookDeliveries.stop();
    await deps.jobs.stop(deps.config.stopGraceSeconds * 1000);
  });
}

/** The API: its plugins (auth, idempotency, OpenAPI), its services and every /v1 route. */
async function serveApi(
  app: App,
  deps: AppDeps,
  storage: Storage,
  shared: Shared,
  background: Background,
  metrics: Metrics,
) {
  const { config, db, keys } = deps;
  const { users, credentials, brandKits, projects, folders } = storage;
  const { access, thumbnails, links, fonts } = shared;
  const { webhookDeliveries, assetProcessor, batchProcessor } = background;
  const auth = createAuthService({ credentials, jwtKey: keys.jwt, tokenTtlSeconds: config.tokenTtlSeconds });
  // Browser sessions of the studio first: a cookie-authenticated request reaches authPlugin with its actor set.
  const sessions = createSessionService({ db: db.kysely, publicUrl: config.publicUrl });
  app.decorate('sessions', sessions);
  await sessionPlugin(app, { sessions, publicUrl: config.publicUrl });
  authPlugin(app, { auth, rateLimiter: deps.rateLimiter, rateLimitEnabled: config.rateLimit.enabled });
  idempotencyPlugin(app, { store: deps.idempotency });
  await openapiPlugin(app, { publicUrl: config.publicUrl, version: VERSION });

  const designs = createDesignService({ db: db.kysely, dialect: db.dialect, access, thumbnails, queue: deps.jobs });
  const projectService = createProjectService({
    db: db.kysely,
    projects,
    brandKits,
    users,
    access,
    keys,
    publicUrl: config.publicUrl,
    thumbnails,
  });
  authRoutes(app, { auth });
  sessionRoutes(app, { sessions, publicUrl: config.publicUrl });
  await studioRoutes(app);
  usersRoutes(app, {
    users: createUserService({ db: db.kysely, dialect: db.dialect, users, keys, publicUrl: config.publicUrl }),
  });
  apiCredentialsRoutes(app, { credentials: createCredentialService({ credentials, users }) });
  avatarRoutes(app, { users, keys });
  filesRoutes(app, { blobs: deps.blobs, keys });
  thumbnailsRoutes(app, { designs: storage.designs, blobs: deps.blobs, keys });
  projectsRoutes(app, { projects: projectService });
  projectUsersRoutes(app, { projects: projectService });
  brandKitsRoutes(app, { brandKits: createBrandKitService({ db: db.kysely, brandKits, access, blobs: deps.blobs }) });
  foldersRoutes(app, {
    folders: createFolderService({ db: db.kysely, dialect: db.dialect, folders, access }),
    designs,
  });
  templatesRoutes(app, { designs, fonts });
  const preflight = createPreflightService({ designs, pool: deps.renderPool, fonts });
  preflightRoutes(app, { preflight });
  studioPreflightRoutes(app, { preflight });
  designVersionsRoutes(app, {
    versions: createDesignVersionService({
      db: db.kysely,
      dialect: db.dialect,
      designs,
      keys,
      publicUrl: config.publicUrl,
    }),
  });
  const exportsRepo = createExportRepository(db.kysely);
  const exportWait = createExportWait({
    queue: deps.jobs,
    unsettledByTeam: () => exportsRepo.countUnsettledByTeam(),
    rateTtlMs: config.renderRateTtlMs,
  });
  exportWaitGauges(metrics, exportWait);
  exportsRoutes(app, {
    exports: createExportService({
      db: db.kysely,
      fonts,
      designs,
      access,
      queue: deps.jobs,
      accepted: background.acceptedExports,
      links,
      deliveries: webhookDeliveries,
      allowPrivateUrls: config.allowPrivateUrls,
      allowedPrivateHosts: config.allowedPrivateHosts,
      queueLimit: config.queueLimit,
      teamFilesInFlight: config.teamFilesInFlight,
      wait: exportWait,
      maxQueueWaitMs: config.maxQueueWaitSeconds * 1000,
      onAccepted: (type, cache) => metrics.exportRequests.inc({ type, cache }),
      acceptWithProbe: db.dialect === 'sqlite',
    }),
  });
  const shareComments = createShareCommentService({
    db: db.kysely,
    linkOf: (token) => shareLinks.linkOf(token),
  });
  const shareLinks = createShareLinkService({
    db: db.kysely,
    fonts,
    designs,
    threads: (hash) => shareComments.threads(hash),
    publicUrl: config.publicUrl,
    // The generic IAB package: everything local, so the page plays it as any browser would.
    renderPackage: async (document, sizeIndex, owner) => {
      const prepared = owner
        ? await fonts.preparer.prepare(owner.teamId, owner.projectId, document)
        : { document, brandFamilies: [] };
      return deps.renderPool.render(
        {
          document: prepared.document as typeof document,
          brandFamilies: prepared.brandFamilies,
          sizeIndex,
          slideIndex: 0,
          format: 'html',
          settings: html.defaults({ networkId: 1 }),
        },
        { budgetMs: config.renderTimeouts.stillSeconds * 1000 },
      );
    },
  });
  shareLinksRoutes(app, { shareLinks });
  shareCommentsRoutes(app, { comments: shareComments });
  studioCanvasRoutes(app, {
    canvas: createStudioCanvasService({
      // Font files kept (no text SVGs), nothing minified: the editor reads the markup element by element.
      renderPackage: (document, sizeIndex) =>
        deps.renderPool.render(
          {
            document,
            sizeIndex,
            slideIndex: 0,
            format: 'html',
            settings: html.defaults({ networkId: 1, convertCustomFonts: false, minifyHtml: false }),
          },
          { budgetMs: config.renderTimeouts.stillSeconds * 1000 },
        ),
    }),
  });
  brandKitAssetsRoutes(app, {
    assets: createAssetService({
      db: db.kysely,
      media: storage.media,
      access,
      blobs: deps.blobs,
      urlTtlSeconds: config.urlTtlSeconds,
      queue: assetProcessor,
      // Checks asset files uploaded from disk (no network: inspect() only reads the bytes it is given).
      inspector: createAssetFetcher({ allowPrivateUrls: false, cacheBytes: 0 }),
    }),
  });
  brandFontsRoutes(app, { fonts });
  adNetworksRoutes(app, {
    adNetworks: createAdNetworkService({ statuses: createAdNetworkRepository(db.kysely) }),
  });
  const renderUrls = wireRenderUrls(app, deps, designs, metrics);
  // Feed URLs of batches: the guard of every user-given URL, with the hosts the deployment allows.
  const feedGuard = createUrlGuard({
    allowPrivateUrls: config.allowPrivateUrls,
    allowedPrivateHosts: config.allowedPrivateHosts,
  });
  renderUrlsRoutes(app, { renderUrls });
  batchesRoutes(app, {
    batches: createBatchService({
      db: db.kysely,
      dialect: db.dialect,
      designs,
      access,
      fonts,
      links,
      blobs: deps.blobs,
      started: (batchId, teamId) => batchProcessor.started(batchId, teamId),
      fetchFeed: (url, field) => fetchRowSource(url, { guard: feedGuard }, field),
      renderUrls,
      preflight: deps.renderPool,
      allowPrivateUrls: config.allowPrivateUrls,
      allowedPrivateHosts: config.allowedPrivateHosts,
    }),
  });
  webhooksRoutes(app, {
    webhooks: createWebhookService({
      webhooks: createWebhookRepository(db.kysely),
      allowPrivateUrls: config.allowPrivateUrls,
      allowedPrivateHosts: config.allowedPrivateHosts,
    }),
    deliveries: createDeliveryService({ deliveries: createDeliveryRepository(db.kysely), webhookDeliveries }),
  });
}

/** Render URLs (docs/render-urls.md): signed links answered with images, rendered on the threads exports use. */
function wireRenderUrls(app: App, deps: AppDeps, designs: ReturnType<typeof createDesignService>, metrics: Metrics) {
  const { config } = deps;
  const threads = deps.renderPool.threads;
  const service = createRenderUrlService({
    repo: createRenderUrlRepository(deps.db.kysely),
    designs,
    keys: deps.keys,
    blobs: deps.blobs,
    render: (job, options) => deps.renderPool.render(job, options),
    sourceGuard: createUrlGuard({ allowPrivateUrls: config.allowPrivateUrls }),
    // Two renders per thread keep the threads busy while results travel; an export's render waits behind at most
    // those (the pool is first come, first served), and one team never holds more than its share.
    gate: createRenderGate({
      total: threads * 2,
      perTeam: Math.min(threads * 2, config.renderUrl.perTeamConcurrency),
      queuePerTeam: 64,
    }),
    fonts: catalogueFonts,
    settings: config.renderUrl,
    publicUrl: config.publicUrl,
    rateLimit: config.rateLimit.enabled ? (key) => deps.rateLimiter.hit('renderUrls', key) : undefined,
    onOutcome: (outcome, source) => metrics.renderUrlRequests.inc({ outcome, source }),
    log: app.log,
  });
  // The runtime closes the object store after the app: the images still being stored go in first, within the grace.
  app.addHook('onClose', async () => {
    let grace: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((resolve) => {
      grace = setTimeout(resolve, config.stopGraceSeconds * 1000);
    });
    await Promise.race([service.stored(), timeUp]);
    clearTimeout(grace);
  });
  return service;
}

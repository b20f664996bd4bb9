// Applies the migrations in order; safe to run on every start and from `placard migrate`.
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from './database.js';
import { platform } from './migrations/0001_platform.js';
import { workspace } from './migrations/0002_workspace.js';
import { events } from './migrations/0003_events.js';
import { designs } from './migrations/0004_designs.js';
import { assets } from './migrations/0005_assets.js';
import { exportPipeline } from './migrations/0006_exports.js';
import { progress } from './migrations/0007_progress.js';
import { html5 } from './migrations/0008_html5.js';
import { fairJobs } from './migrations/0010_fair_jobs.js';
import { brandFonts } from './migrations/0012_brand_fonts.js';
import { studio } from './migrations/0013_studio.js';
import { preflight } from './migrations/0014_preflight.js';
import { renderUrls } from './migrations/0016_render_urls.js';
import { jobOrder } from './migrations/0017_job_order.js';
import { brandColors } from './migrations/0018_brand_colors.js';
import { batches } from './migrations/0019_batches.js';
import { cacheInvalidation } from './migrations/0020_cache_invalidation.js';
import { attemptRow } from './migrations/0021_attempt_row.js';
import { jobsDue } from './migrations/0022_jobs_due.js';
import { exportStatements } from './migrations/0023_export_statements.js';
import { finishSettlesJob } from './migrations/0024_finish_settles_job.js';
import { acceptHoldsJob } from './migrations/0025_accept_holds_job.js';
import { unsettledFiles } from './migrations/0026_unsettled_files.js';
import { hashesAcrossTables } from './migrations/0027_hashes_across_tables.js';
import { acceptGuard } from './migrations/0028_accept_guard.js';

function provider(db: Db): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001_platform': platform(db.dialect),
        '0002_workspace': workspace(db.dialect),
        '0003_events': events(db.dialect),
        '0004_designs': designs(db.dialect),
        '0005_assets': assets(db.dialect),
        '0006_exports': exportPipeline(db.dialect),
        '0007_progress': progress(),
        '0008_html5': html5(),
        '0010_fair_jobs': fairJobs(),
        '0012_brand_fonts': brandFonts(db.dialect),
        '0013_studio': studio(),
        '0014_preflight': preflight(),
        '0016_render_urls': renderUrls(),
        '0017_job_order': jobOrder(),
        '0018_brand_colors': brandColors(),
        '0019_batches': batches(db.dialect),
        '0020_cache_invalidation': cacheInvalidation(db.dialect),
        '0021_attempt_row': attemptRow(db.dialect),
        '0022_jobs_due': jobsDue(),
        '0023_export_statements': exportStatements(db.dialect),
        '0024_finish_settles_job': finishSettlesJob(db.dialect),
        '0025_accept_holds_job': acceptHoldsJob(db.dialect),
        '0026_unsettled_files': unsettledFiles(),
        '0027_hashes_across_tables': hashesAcrossTables(db.dialect),
        '0028_accept_guard': acceptGuard(db.dialect),
      };
    },
  };
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: provider(db) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

// Draws the thumbnails of designs saved without one (an export with changes answers before its design's thumbnail is
// drawn, so that the thumbnail does not double the render work on the request path). A design changed or deleted
// meanwhile keeps what its change made; the picture drawn here is then thrown away.
import type { Kysely } from 'kysely';
import type { DesignDocument } from '../domain/design.schema.js';
import type { Dialect } from '../storage/db/database.js';
import { createDesignRepository } from '../storage/db/repositories/designs.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { JobQueue } from './job-queue.js';

export function registerThumbnailJobs(options: {
  db: Kysely<Database>;
  dialect: Dialect;
  queue: Pick<JobQueue, 'process'>;
  /** What the job needs of services/thumbnail.ts, stated here so that jobs/ does not import services/. */
  thumbnails: {
    make(designHash: string, document: DesignDocument, owner?: { teamId: number; projectId: number }): Promise<string>;
    discard(keys: readonly (string | null)[]): Promise<void>;
  };
}): void {
  const designs = createDesignRepository(options.db, options.dialect);
  options.queue.process(
    'design.thumbnail',
    async (job) => {
      const design = await designs.findById(job.payload.designId);
      if (!design || design.revision !== job.payload.revision || design.thumb_key !== null) return;
      const key = await options.thumbnails.make(design.hash, JSON.parse(design.document) as DesignDocument, {
        teamId: design.team_id,
        projectId: design.project_id,
      });
      if (!(await designs.setMissingThumbnail(design.id, job.payload.revision, key))) {
        await options.thumbnails.discard([key]);
      }
    },
    { concurrency: 1 },
  );
}

// Design versions (seed "Design versions", SPEC §11): snapshots of a design's whole document. `hash` is a design hash
// or one of its size hashes; a version's sizeHash is the size hash given, else the first size's. Restoring first saves
// the current content as an automatic version (design.service's replaceContent), so a restore can be undone.
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { readDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { Dialect } from '../storage/db/database.js';
import {
  createDesignVersionRepository,
  type DesignVersionView,
} from '../storage/db/repositories/design-versions.repository.js';
import { createDesignRepository } from '../storage/db/repositories/designs.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { ServerKeys } from '../storage/secrets.js';
import { avatarUrl } from './avatar.js';
import { type DesignService, documentOf, versionEventOf } from './design.service.js';

export interface DesignVersionServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  designs: Pick<DesignService, 'requireDesignOrSize' | 'replaceContent' | 'nodeOf'>;
  keys: ServerKeys;
  publicUrl: string;
}

const SUCCESS = { status: 'success' as const };

export function createDesignVersionService({ db, dialect, designs, keys, publicUrl }: DesignVersionServiceDeps) {
  const versions = createDesignVersionRepository(db);

  /** The version as the seed shows it; the picture is the one GET /v1/users shows for that user. */
  function versionOf(view: DesignVersionView) {
    return {
      id: view.id,
      lastModified: view.created_at,
      lastModifiedByName: view.created_by_name,
      lastModifiedByProfilePicture: view.created_by_picture ?? avatarUrl(publicUrl, keys, view.created_by),
      versionName: view.version_name,
      sizeHash: view.size_hash,
    };
  }

  function unknownVersion(versionId: string, hash: string): AppError {
    return new AppError('NOT_FOUND', `versionId: design ${hash} has no version ${JSON.stringify(versionId)}`);
  }

  return {
    async list(actor: Actor, hash: string) {
      const design = await designs.requireDesignOrSize(actor, hash, 'read');
      return (await versions.list(design.id)).map(versionOf);
    },

    async create(actor: Actor, input: { hash: string; versionName: string }) {
      const design = await designs.requireDesignOrSize(actor, input.hash, 'content:write');
      await db.transaction().execute(async (tx) => {
        // Under the design's row lock, so the snapshot is the content as it is and numbers never collide.
        const current = await createDesignRepository(tx, dialect).lock(design.id);
        if (!current) {
          throw new AppError('NOT_FOUND', `hash: design ${design.hash} was deleted by another request meanwhile`);
        }
        const version = await createDesignVersionRepository(tx).insert({
          designId: current.id,
          name: input.versionName,
          document: current.document,
          sizeHash: design.size_hash ?? (documentOf(current).sizes[0].hash as string),
          automatic: false,
          userId: actor.userId,
        });
        await recordEvent(tx, {
          teamId: actor.teamId,
          action: 'designVersion/create',
          data: { template: await designs.nodeOf(current), version: versionEventOf(version, actor) },
        });
      });
      return SUCCESS;
    },

    async rename(actor: Actor, input: { hash: string; versionId: string; versionName: string }) {
      const design = await designs.requireDesignOrSize(actor, input.hash, 'content:write');
      if (!(await versions.rename(design.id, input.versionId, input.versionName))) {
        throw unknownVersion(input.versionId, design.hash);
      }
      return SUCCESS;
    },

    /** The version's document, migrated to the current format as restore() would store it. */
    async document(actor: Actor, input: { hash: string; versionId: string }) {
      const design = await designs.requireDesignOrSize(actor, input.hash, 'read');
      const version = await versions.find(design.id, input.versionId);
      if (!version) throw unknownVersion(input.versionId, design.hash);
      return readDocument(JSON.parse(version.document));
    },

    async restore(actor: Actor, input: { hash: string; versionId: string }) {
      const design = await designs.requireDesignOrSize(actor, input.hash, 'content:write');
      const version = await versions.find(design.id, input.versionId);
      if (!version) throw unknownVersion(input.versionId, design.hash);
      // Through the same path as a new document: an older document is migrated to the current format first.
      const document = readDocument(JSON.parse(version.document));
      await designs.replaceContent(actor, design, document, `Before restoring “${version.version_name}”`);
      return SUCCESS;
    },
  };
}

export type DesignVersionService = ReturnType<typeof createDesignVersionService>;

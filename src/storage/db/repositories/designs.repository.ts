// Designs and the hashes of their sizes. Which projects a caller sees is decided in services/access.ts; this module
// turns that decision (a ProjectScope) into SQL, so that lookups and lists are filtered in the database.
import type { Selectable } from 'kysely';
import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { containsIgnoringCase } from '../contains.js';
import type { Dialect } from '../database.js';
import { now } from '../database.js';
import { paginate } from '../paginate.js';
import { preparedBy } from '../prepared.js';
import type { Database, DesignsTable } from '../schema.js';
import { type ProjectScope, visibleProjectIdsQuery } from './projects.repository.js';

/** A row as selected: the table's columns with their select types (one definition, in schema.ts). */
export type DesignRow = Selectable<DesignsTable>;

/** What the list shows of a design: everything but the document, which can be large. */
export type DesignListRow = Omit<DesignRow, 'document'>;

export interface DesignListFilters {
  keyword?: string;
  exactSearch?: boolean;
  projectId?: number;
  folderId?: number;
  /** true: only API-generated designs; false: none of them (SPEC §11). */
  apiGenerated: boolean;
  onlyTemplates?: boolean;
}

export interface NewDesign {
  hash: string;
  teamId: number;
  projectId: number;
  folderId: number | null;
  name: string;
  isTemplate: boolean;
  apiGenerated: boolean;
  document: string;
  thumbKey: string | null;
  userId: number;
}

const COLUMNS = [
  'id',
  'hash',
  'team_id',
  'project_id',
  'folder_id',
  'name',
  'is_template',
  'api_generated',
  'document',
  'revision',
  'thumb_key',
  'created_by',
  'updated_by',
  'created_at',
  'updated_at',
] as const;

const LIST_COLUMNS = COLUMNS.filter((c) => c !== 'document');

/**
 * A design by its hash in a project of the scope (built once per kind of scope, issue 21: every export reads it).
 * `member`: the scope is a member's projects, not the whole team's.
 */
const findVisibleStatement = preparedBy<
  boolean,
  { teamId: number; memberUserId: number | null; hash: string },
  DesignRow
>(
  (db, p, member) =>
    db
      .selectFrom('designs')
      .select(COLUMNS)
      .where('team_id', '=', p('teamId'))
      .where('hash', '=', p('hash'))
      .where(
        'project_id',
        'in',
        visibleProjectIdsQuery(db, {
          teamId: p('teamId'),
          memberUserId: member ? (p('memberUserId') as number) : null,
        }),
      ),
  (member) => (member ? 'member' : 'team'),
);

function newRow(design: NewDesign) {
  const at = now();
  return {
    hash: design.hash,
    team_id: design.teamId,
    project_id: design.projectId,
    folder_id: design.folderId,
    name: design.name,
    is_template: design.isTemplate ? 1 : 0,
    api_generated: design.apiGenerated ? 1 : 0,
    document: design.document,
    revision: 1,
    thumb_key: design.thumbKey,
    created_by: design.userId,
    updated_by: design.userId,
    created_at: at,
    updated_at: at,
  };
}

export function createDesignRepository(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** The design with this hash in a project of the scope. */
    async findVisible(scope: ProjectScope, hash: string): Promise<DesignRow | undefined> {
      const { rows } = await findVisibleStatement(db, scope.memberUserId !== null, {
        teamId: scope.teamId,
        memberUserId: scope.memberUserId,
        hash,
      });
      return rows[0];
    },

    /** The design whose hash, or the hash of one of whose sizes, is `hash`, in a project of the scope. */
    async findVisibleByDesignOrSizeHash(
      scope: ProjectScope,
      hash: string,
    ): Promise<(DesignRow & { size_hash: string | null }) | undefined> {
      const design = await this.findVisible(scope, hash);
      if (design) return { ...design, size_hash: null };
      return db
        .selectFrom('designs as d')
        .innerJoin('design_sizes as s', 's.design_id', 'd.id')
        .select(COLUMNS.map((c) => `d.${c}` as const))
        .select('s.hash as size_hash')
        .where('d.team_id', '=', scope.teamId)
        .where('s.hash', '=', hash)
        .where('d.project_id', 'in', visibleProjectIdsQuery(db, scope))
        .executeTakeFirst();
    },

    /** Re-reads a design inside a transaction, holding its row until the transaction ends (PostgreSQL). */
    async lock(id: number): Promise<DesignRow | undefined> {
      let query = db.selectFrom('designs').select(COLUMNS).where('id', '=', id);
      // SQLite runs one writer at a time already and has no FOR UPDATE.
      if (dialect === 'postgres') query = query.forUpdate();
      return query.executeTakeFirst();
    },

    /**
     * Which of `hashes` are taken service-wide, as a design hash or as the size hash of a design other than
     * `exceptDesignId` (a design keeps its own size hashes when its document is replaced).
     */
    async takenHashes(hashes: readonly string[], exceptDesignId: number | null = null): Promise<Set<string>> {
      if (hashes.length === 0) return new Set();
      let sizes = db.selectFrom('design_sizes').select('hash').where('hash', 'in', hashes);
      if (exceptDesignId !== null) sizes = sizes.where('design_id', '!=', exceptDesignId);
      // One statement for both tables: an export with changes checks its new hashes inside its accept (issue 21).
      const rows = await db.selectFrom('designs').select('hash').where('hash', 'in', hashes).unionAll(sizes).execute();
      return new Set(rows.map((r) => r.hash));
    },

    async insert(design: NewDesign): Promise<DesignRow> {
      return db.insertInto('designs').values(newRow(design)).returning(COLUMNS).executeTakeFirstOrThrow();
    },

    /**
     * The inserts of a new design and its sizes, not run: statements of a data-modifying WITH (PostgreSQL), the design's
     * named `as` (it answers its id), its sizes taking their design's id from it. The caller runs them in one statement
     * with others (issue 21: an export with changes is accepted in one statement).
     */
    insertStatements(design: NewDesign, sizeHashes: readonly string[], as: string) {
      const row = db.insertInto('designs').values(newRow(design)).returning('id');
      const designId = sql<number>`(select id from ${sql.table(as)})`;
      const sizes =
        sizeHashes.length === 0
          ? null
          : db
              .insertInto('design_sizes')
              .values(sizeHashes.map((hash, position) => ({ hash, design_id: designId, position })));
      return { row, sizes };
    },

    /** Changes a design and stamps who and when; returns the row as it is now. */
    async update(
      id: number,
      changes: Partial<Pick<DesignRow, 'name' | 'is_template' | 'document' | 'revision' | 'thumb_key' | 'folder_id'>>,
      userId: number,
    ): Promise<DesignRow> {
      return db
        .updateTable('designs')
        .set({ ...changes, updated_by: userId, updated_at: now() })
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    },

    /** The thumbnail key of the design with this hash, whatever its visibility (signed thumbnail links). */
    async thumbKeyByHash(hash: string): Promise<{ thumb_key: string | null } | undefined> {
      return db.selectFrom('designs').select('thumb_key').where('hash', '=', hash).executeTakeFirst();
    },

    /** The design with this hash when it has no thumbnail: its id and revision (the thumbnail job's payload). */
    async missingThumbnailByHash(hash: string): Promise<{ id: number; revision: number } | undefined> {
      return db
        .selectFrom('designs')
        .select(['id', 'revision'])
        .where('hash', '=', hash)
        .where('thumb_key', 'is', null)
        .executeTakeFirst();
    },

    /** A design by id, whatever its visibility (background jobs). */
    async findById(id: number): Promise<DesignRow | undefined> {
      return db.selectFrom('designs').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * Sets the thumbnail of a design that still has `revision` and none yet; false when it changed meanwhile (its
     * change drew its own) or was deleted. Not a change of the design: updated_at stays.
     */
    async setMissingThumbnail(id: number, revision: number, key: string): Promise<boolean> {
      const result = await db
        .updateTable('designs')
        .set({ thumb_key: key })
        .where('id', '=', id)
        .where('revision', '=', revision)
        .where('thumb_key', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * As setMissingThumbnail for a design known by its hash, whatever its revision: the design's id and revision when
     * it was set, null when the design has a thumbnail already (or is gone).
     */
    async setMissingThumbnailByHash(hash: string, key: string): Promise<{ id: number; revision: number } | null> {
      const row = await db
        .updateTable('designs')
        .set({ thumb_key: key })
        .where('hash', '=', hash)
        .where('thumb_key', 'is', null)
        .returning(['id', 'revision'])
        .executeTakeFirst();
      return row ?? null;
    },

    /**
     * Makes `hashes` (in document order) the size hashes of the design. `isNew`: the design was inserted in this
     * transaction and has no sizes to delete (one statement fewer).
     */
    async replaceSizes(designId: number, hashes: readonly string[], isNew = false): Promise<void> {
      if (!isNew) await db.deleteFrom('design_sizes').where('design_id', '=', designId).execute();
      if (hashes.length === 0) return;
      await db
        .insertInto('design_sizes')
        .values(hashes.map((hash, position) => ({ hash, design_id: designId, position })))
        .execute();
    },

    /** Deletes the design with its sizes and versions (ON DELETE CASCADE). */
    async delete(id: number): Promise<void> {
      await db.deleteFrom('designs').where('id', '=', id).execute();
    },

    /** Moves the designs of a folder to `parentId` (the project root when null): a folder is deleted, not its designs. */
    async moveOutOfFolder(folderId: number, parentId: number | null, userId: number): Promise<void> {
      await db
        .updateTable('designs')
        .set({ folder_id: parentId, updated_by: userId, updated_at: now() })
        .where('folder_id', '=', folderId)
        .execute();
    },

    async list(scope: ProjectScope, filters: DesignListFilters, page: PageRequest) {
      let query = db
        .selectFrom('designs as d')
        .select(LIST_COLUMNS.map((c) => `d.${c}` as const))
        .where('d.team_id', '=', scope.teamId)
        .where('d.project_id', 'in', visibleProjectIdsQuery(db, scope))
        .where('d.api_generated', '=', filters.apiGenerated ? 1 : 0);
      if (filters.projectId !== undefined) query = query.where('d.project_id', '=', filters.projectId);
      if (filters.folderId !== undefined) query = query.where('d.folder_id', '=', filters.folderId);
      if (filters.onlyTemplates) query = query.where('d.is_template', '=', 1);
      const keyword = filters.keyword;
      if (keyword !== undefined) {
        query = filters.exactSearch
          ? query.where(sql<boolean>`lower(${sql.ref('d.name')}) = ${keyword.toLowerCase()}`)
          : query.where((eb) => containsIgnoringCase(eb.ref('d.name'), keyword));
      }
      return paginate<DesignListRow>(query, page, 'd.id', {
        NAME: 'd.name',
        CREATED_AT: 'd.created_at',
        UPDATED_AT: 'd.updated_at',
      });
    },
  };
}

export type DesignRepository = ReturnType<typeof createDesignRepository>;

/**
 * Deletes every design of a project (with their sizes and versions); returns the thumbnail keys they had, for the
 * caller to discard once the transaction has committed. A function of its own: project deletion needs no dialect.
 */
export async function deleteDesignsOfProject(db: Kysely<Database>, projectId: number): Promise<string[]> {
  const rows = await db.deleteFrom('designs').where('project_id', '=', projectId).returning('thumb_key').execute();
  return rows.flatMap((r) => (r.thumb_key ? [r.thumb_key] : []));
}

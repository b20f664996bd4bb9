// Folders of a project: a tree through parent_id (null at the root). Walking up the tree (breadcrumbs, the move
// cycle check) is one recursive query, the same SQL on SQLite and PostgreSQL.
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { now } from '../database.js';
import type { Database } from '../schema.js';

export interface FolderRow {
  id: number;
  project_id: number;
  parent_id: number | null;
  name: string;
  created_by: number;
  updated_by: number;
  created_at: string;
  updated_at: string;
}

/** A folder with the names of the users who created and last changed it. */
export type FolderView = FolderRow & { created_by_name: string; updated_by_name: string };

const COLUMNS = [
  'id',
  'project_id',
  'parent_id',
  'name',
  'created_by',
  'updated_by',
  'created_at',
  'updated_at',
] as const;

/** Deeper than any real tree; only stops the walk if a cycle ever reached the table. */
const MAX_DEPTH = 10_000;

export function createFolderRepository(db: Kysely<Database>, dialect: Dialect) {
  function views() {
    return db
      .selectFrom('folders as f')
      .innerJoin('users as cu', 'cu.id', 'f.created_by')
      .innerJoin('users as uu', 'uu.id', 'f.updated_by')
      .select(COLUMNS.map((c) => `f.${c}` as const))
      .select(['cu.name as created_by_name', 'uu.name as updated_by_name']);
  }

  return {
    /** A folder of any project of the team (visibility of that project is access.ts's decision). */
    async findInTeam(teamId: number, id: number): Promise<FolderRow | undefined> {
      return db
        .selectFrom('folders as f')
        .innerJoin('projects as p', 'p.id', 'f.project_id')
        .select(COLUMNS.map((c) => `f.${c}` as const))
        .where('p.team_id', '=', teamId)
        .where('f.id', '=', id)
        .executeTakeFirst();
    },

    async findView(id: number): Promise<FolderView | undefined> {
      return views().where('f.id', '=', id).executeTakeFirst();
    },

    /** The folders directly under `parentId` (the root when null), by name (case-insensitive), then id. */
    async listChildren(projectId: number, parentId: number | null): Promise<FolderView[]> {
      return views()
        .where('f.project_id', '=', projectId)
        .where('f.parent_id', parentId === null ? 'is' : '=', parentId)
        .orderBy(sql`lower(${sql.ref('f.name')})`)
        .orderBy('f.id')
        .execute();
    },

    /** The folder and its ancestors, from the root down to the folder itself. */
    async pathTo(id: number): Promise<Array<{ id: number; name: string }>> {
      const { rows } = await sql<{ id: number; name: string }>`
        with recursive chain (id, name, parent_id, depth) as (
          select id, name, parent_id, 0 from folders where id = ${id}
          union all
          select f.id, f.name, f.parent_id, chain.depth + 1
          from folders f join chain on f.id = chain.parent_id
          where chain.depth < ${MAX_DEPTH}
        )
        select id, name from chain order by depth desc`.execute(db);
      return rows.map((r) => ({ id: Number(r.id), name: r.name }));
    },

    async insert(folder: { projectId: number; parentId: number | null; name: string; userId: number }) {
      const at = now();
      const row = await db
        .insertInto('folders')
        .values({
          project_id: folder.projectId,
          parent_id: folder.parentId,
          name: folder.name,
          created_by: folder.userId,
          updated_by: folder.userId,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async update(id: number, changes: { name?: string; parent_id?: number | null }, userId: number): Promise<void> {
      await db
        .updateTable('folders')
        .set({ ...changes, updated_by: userId, updated_at: now() })
        .where('id', '=', id)
        .execute();
    },

    /** Moves the folder's subfolders up to its parent, then deletes it. Call inside withTree's transaction. */
    async deleteKeepingChildren(id: number, userId: number): Promise<void> {
      // Read here, under the tree lock: the parent may have changed since the caller looked.
      const folder = await db.selectFrom('folders').select('parent_id').where('id', '=', id).executeTakeFirst();
      if (!folder) return;
      await db
        .updateTable('folders')
        .set({ parent_id: folder.parent_id, updated_by: userId, updated_at: now() })
        .where('parent_id', '=', id)
        .execute();
      await db.deleteFrom('folders').where('id', '=', id).execute();
    },

    /**
     * Serialises changes to the folder tree of a project until the transaction ends, so that two concurrent moves
     * cannot each pass the cycle check and together make a cycle. SQLite already runs one writer at a time.
     */
    async lockTree(projectId: number): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.selectFrom('projects').select('id').where('id', '=', projectId).forUpdate().execute();
    },
  };
}

export type FolderRepository = ReturnType<typeof createFolderRepository>;

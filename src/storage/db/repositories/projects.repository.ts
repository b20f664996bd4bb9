// Projects and their users. Which projects a caller sees is decided in services/access.ts; this module only turns
// that decision (a ProjectScope) into SQL, so that lists are filtered and paginated in the database.

import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { containsIgnoringCase } from '../contains.js';
import { now } from '../database.js';
import { paginate } from '../paginate.js';
import type { Database } from '../schema.js';

/** The projects of `teamId`, or only those `memberUserId` is a user of when it is set. */
export interface ProjectScope {
  teamId: number;
  memberUserId: number | null;
}

export interface ProjectRow {
  id: number;
  team_id: number;
  name: string;
  color: string;
  description: string | null;
  brand_kit_id: number;
  is_brand_kit_selectable: number;
  created_by: number;
  created_at: string;
  updated_at: string;
}

export type ProjectListRow = ProjectRow & { brand_kit_name: string };

/** A live team user who is a user of a project. */
export interface ProjectUserRow {
  id: number;
  team_id: number;
  name: string;
  email: string;
  role_id: number;
  profile_picture: string | null;
}

const COLUMNS = [
  'id',
  'team_id',
  'name',
  'color',
  'description',
  'brand_kit_id',
  'is_brand_kit_selectable',
  'created_by',
  'created_at',
  'updated_at',
] as const;

/**
 * The ids of the projects in scope, as a subquery: `where('project_id', 'in', visibleProjectIdsQuery(db, scope))`
 * lets designs, folders and exports filter by visibility without loading the ids first.
 */
export function visibleProjectIdsQuery(db: Kysely<Database>, scope: ProjectScope) {
  let query = db.selectFrom('projects').select('projects.id').where('projects.team_id', '=', scope.teamId);
  if (scope.memberUserId !== null) {
    const member = scope.memberUserId;
    query = query.where('projects.id', 'in', (eb) =>
      eb.selectFrom('project_users').select('project_users.project_id').where('project_users.user_id', '=', member),
    );
  }
  return query;
}

export function createProjectRepository(db: Kysely<Database>) {
  return {
    async findById(teamId: number, id: number): Promise<ProjectRow | undefined> {
      return db
        .selectFrom('projects')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async isMember(projectId: number, userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('project_users')
        .select('project_id')
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row !== undefined;
    },

    async visibleIds(scope: ProjectScope): Promise<number[]> {
      const rows = await visibleProjectIdsQuery(db, scope).orderBy('projects.id').execute();
      return rows.map((r) => r.id);
    },

    async list(scope: ProjectScope, keyword: string | undefined, page: PageRequest) {
      let query = db
        .selectFrom('projects as p')
        .innerJoin('brand_kits as bk', 'bk.id', 'p.brand_kit_id')
        .select(COLUMNS.map((c) => `p.${c}` as const))
        .select('bk.name as brand_kit_name')
        .where('p.id', 'in', visibleProjectIdsQuery(db, scope));
      if (keyword) query = query.where((eb) => containsIgnoringCase(eb.ref('p.name'), keyword));
      return paginate<ProjectListRow>(query, page, 'p.id', {
        NAME: 'p.name',
        CREATED_AT: 'p.created_at',
        UPDATED_AT: 'p.updated_at',
      });
    },

    async insert(project: {
      teamId: number;
      name: string;
      color: string;
      description: string | null;
      brandKitId: number;
      createdBy: number;
    }): Promise<ProjectRow> {
      const at = now();
      return db
        .insertInto('projects')
        .values({
          team_id: project.teamId,
          name: project.name,
          color: project.color,
          description: project.description,
          brand_kit_id: project.brandKitId,
          is_brand_kit_selectable: 0,
          created_by: project.createdBy,
          created_at: at,
          updated_at: at,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    },

    async update(
      teamId: number,
      id: number,
      changes: Partial<Pick<ProjectRow, 'name' | 'color' | 'description' | 'brand_kit_id' | 'is_brand_kit_selectable'>>,
    ): Promise<void> {
      await db
        .updateTable('projects')
        .set({ ...changes, updated_at: now() })
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },

    /** Deletes the project; its folders and memberships go with it (ON DELETE CASCADE). */
    async delete(teamId: number, id: number): Promise<void> {
      await db.deleteFrom('projects').where('team_id', '=', teamId).where('id', '=', id).execute();
    },

    /** Adds a user to a project; adding a user twice changes nothing. */
    async addUser(projectId: number, userId: number): Promise<void> {
      await db
        .insertInto('project_users')
        .values({ project_id: projectId, user_id: userId, created_at: now() })
        .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
        .execute();
    },

    async removeUser(projectId: number, userId: number): Promise<void> {
      await db.deleteFrom('project_users').where('project_id', '=', projectId).where('user_id', '=', userId).execute();
    },

    /** The live users of a project, by name (case-insensitive), then id. */
    async listUsers(projectId: number): Promise<ProjectUserRow[]> {
      return db
        .selectFrom('project_users as pu')
        .innerJoin('users as u', 'u.id', 'pu.user_id')
        .select(['u.id', 'u.team_id', 'u.name', 'u.email', 'u.role_id', 'u.profile_picture'])
        .where('pu.project_id', '=', projectId)
        .where('u.deleted_at', 'is', null)
        .orderBy(sql`lower(${sql.ref('u.name')})`)
        .orderBy('u.id')
        .execute();
    },
  };
}

export type ProjectRepository = ReturnType<typeof createProjectRepository>;

// Projects and their users (SPEC §2, §11). The creator of a project becomes one of its users; Editors change only
// projects they belong to (the others are invisible to them, so 404); deleting a project takes its folders with it.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import { roleById } from '../domain/permissions.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { BrandKitRepository, BrandKitRow } from '../storage/db/repositories/brand-kits.repository.js';
import { deleteDesignsOfProject } from '../storage/db/repositories/designs.repository.js';
import {
  createProjectRepository,
  type ProjectRepository,
  type ProjectRow,
  type ProjectUserRow,
} from '../storage/db/repositories/projects.repository.js';
import type { UserRepository } from '../storage/db/repositories/users.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { ServerKeys } from '../storage/secrets.js';
import { type Access, projectScope, requirePermission } from './access.js';
import { avatarUrl } from './avatar.js';
import type { Thumbnails } from './thumbnail.js';

export interface ProjectServiceDeps {
  db: Kysely<Database>;
  projects: Pick<ProjectRepository, 'list' | 'update' | 'addUser' | 'removeUser' | 'listUsers'>;
  brandKits: Pick<BrandKitRepository, 'findById'>;
  users: Pick<UserRepository, 'findById'>;
  access: Pick<Access, 'requireProject' | 'requireBrandKit'>;
  keys: ServerKeys;
  publicUrl: string;
  /** The thumbnails of a deleted project's designs are removed after the delete commits. */
  thumbnails: Pick<Thumbnails, 'discard'>;
}

export interface CreateProjectInput {
  name: string;
  brandKitId: number;
  color?: string;
  description?: string | null;
}

export interface UpdateProjectInput {
  projectId: number;
  name?: string;
  assignedBrandKitId?: number;
  isBrandKitSelectable?: boolean;
  color?: string;
  description?: string | null;
}

/** `#` and six random hex digits, for a project created without a colour (SPEC §11). */
function randomColour(): string {
  return `#${randomBytes(3).toString('hex').toUpperCase()}`;
}

/** The project as create and update answer it (seed: `response.project`). */
function projectOf(row: ProjectRow, kit: BrandKitRow) {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    createdBy: row.created_by,
    color: row.color,
    description: row.description,
    brandKit: {
      id: kit.id,
      name: kit.name,
      teamId: kit.team_id,
      createdBy: kit.created_by,
      typography: kit.typography,
    },
  };
}

export function createProjectService({
  db,
  projects,
  brandKits,
  users,
  access,
  keys,
  publicUrl,
  thumbnails,
}: ProjectServiceDeps) {
  function projectUserOf(user: ProjectUserRow) {
    return {
      userId: user.id,
      teamId: user.team_id,
      name: user.name,
      // The seed shows null and says nothing more; no user has a page of its own.
      url: null,
      email: user.email,
      // The same picture as GET /v1/users shows for this user.
      profilePicture: user.profile_picture ?? avatarUrl(publicUrl, keys, user.id),
      role: roleById(user.role_id)?.name ?? 'Viewer',
      teamRoleId: user.role_id,
    };
  }

  async function brandKitOf(actor: Actor, project: ProjectRow): Promise<BrandKitRow> {
    const kit = await brandKits.findById(actor.teamId, project.brand_kit_id);
    // The foreign key keeps the kit while the project uses it.
    if (!kit) throw new Error(`project ${project.id} refers to missing brand kit ${project.brand_kit_id}`);
    return kit;
  }

  /** A live user of the actor's team, else 404 (a user of another team does not exist for the caller). */
  async function requireTeamUser(actor: Actor, userId: number) {
    const user = await users.findById(actor.teamId, userId);
    if (!user) throw new AppError('NOT_FOUND', `userId: user ${userId} does not exist in this team`);
    return user;
  }

  return {
    async list(actor: Actor, query: PageQuery & { keyword?: string }) {
      const keyword = query.keyword?.trim() || undefined;
      const page = pageRequest(query, { keyword }, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const result = await projects.list(projectScope(actor), keyword, page);
      return {
        ...result,
        nodes: result.nodes.map((row) => ({
          id: row.id,
          name: row.name,
          createdBy: row.created_by,
          // The seed's list shows color null; create and update answer the colour.
          color: null,
          description: row.description,
          brandKit: { id: row.brand_kit_id, name: row.brand_kit_name },
        })),
      };
    },

    async create(actor: Actor, input: CreateProjectInput) {
      // The brand kit first: another team's kit is a 404 for every role, then a Viewer is refused.
      const kit = await access.requireBrandKit(actor, input.brandKitId, 'read', 'brandKitId');
      requirePermission(actor, 'content:write', 'creating a project');
      const project = await db.transaction().execute(async (tx) => {
        const repo = createProjectRepository(tx);
        const row = await repo.insert({
          teamId: actor.teamId,
          name: input.name.trim(),
          color: input.color ?? randomColour(),
          description: input.description ?? null,
          brandKitId: kit.id,
          createdBy: actor.userId,
        });
        // The creator is added so that an Editor sees the project it has just made (SPEC §2).
        await repo.addUser(row.id, actor.userId);
        const project = projectOf(row, kit);
        await recordEvent(tx, { teamId: actor.teamId, action: 'project/create', data: { project } });
        return project;
      });
      return { project };
    },

    async update(actor: Actor, input: UpdateProjectInput) {
      const current = await access.requireProject(actor, input.projectId, 'content:write');
      const kit =
        input.assignedBrandKitId === undefined
          ? await brandKitOf(actor, current)
          : await access.requireBrandKit(actor, input.assignedBrandKitId, 'read', 'assignedBrandKitId');
      const changes = {
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.color !== undefined && { color: input.color }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.isBrandKitSelectable !== undefined && {
          is_brand_kit_selectable: input.isBrandKitSelectable ? 1 : 0,
        }),
        brand_kit_id: kit.id,
      };
      await projects.update(actor.teamId, current.id, changes);
      return { project: projectOf({ ...current, ...changes }, kit) };
    },

    async delete(actor: Actor, projectId: number): Promise<void> {
      const project = await access.requireProject(actor, projectId, 'content:write');
      const kit = await brandKitOf(actor, project);
      const thumbs = await db.transaction().execute(async (tx) => {
        // Designs first, to learn their thumbnails; folders and memberships go with the project (ON DELETE CASCADE).
        const thumbs = await deleteDesignsOfProject(tx, project.id);
        await createProjectRepository(tx).delete(actor.teamId, project.id);
        await recordEvent(tx, {
          teamId: actor.teamId,
          action: 'project/delete',
          data: { project: projectOf(project, kit) },
        });
        return thumbs;
      });
      await thumbnails.discard(thumbs);
    },

    async listUsers(actor: Actor, projectId: number) {
      const project = await access.requireProject(actor, projectId, 'read');
      return (await projects.listUsers(project.id)).map(projectUserOf);
    },

    /** Adding a user twice is a success and changes nothing (SPEC §11). */
    async addUser(actor: Actor, input: { projectId: number; userId: number }): Promise<void> {
      const project = await access.requireProject(actor, input.projectId, 'content:write');
      const user = await requireTeamUser(actor, input.userId);
      await projects.addUser(project.id, user.id);
    },

    /** Removing a team user who is not a user of the project is a success too, mirroring addUser. */
    async removeUser(actor: Actor, input: { projectId: number; userId: number }): Promise<void> {
      const project = await access.requireProject(actor, input.projectId, 'content:write');
      const user = await requireTeamUser(actor, input.userId);
      await projects.removeUser(project.id, user.id);
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;

// The one place that decides what a caller sees and may change (SPEC §2). Owners and Admins see every project of
// their team; Editors and Viewers the projects they are users of, and the folders (later designs and exports) inside
// them. Brand kits are team-wide. Another team's objects, and projects the caller is not a user of, do not exist for
// the caller: 404, never 403. Only an object the caller can see answers 403 when the role lacks the permission.
//
// Why routes that change an existing object declare `permission: 'read'` and the service calls require*(…,
// 'content:write'): the route-level check runs before any lookup, so a Viewer would get 403 for another team's project
// id where every other caller gets 404. Checking visibility first and the permission second gives one answer per
// object for every role. Routes with nothing to look up (creating a brand kit) keep their permission on the route.

import type { Actor } from '../domain/actor.js';
import { can, PERMISSIONS, type Permission, roleById, seesEveryProject } from '../domain/permissions.js';
import { AppError } from '../errors.js';
import type { BrandKitRepository, BrandKitRow } from '../storage/db/repositories/brand-kits.repository.js';
import type { FolderRepository, FolderRow } from '../storage/db/repositories/folders.repository.js';
import type { ProjectRepository, ProjectRow, ProjectScope } from '../storage/db/repositories/projects.repository.js';

/** The projects the actor sees, in the form repositories filter by (see visibleProjectIdsQuery). */
export function projectScope(actor: Actor): ProjectScope {
  return { teamId: actor.teamId, memberUserId: seesEveryProject(actor.roleId) ? null : actor.userId };
}

/** 403 unless the actor's role holds the permission; `subject` names what was visible, e.g. "project 3". */
export function requirePermission(actor: Actor, permission: Permission, subject: string): void {
  if (can(actor.roleId, permission)) return;
  const needed = roleById(PERMISSIONS[permission])?.name;
  const role = roleById(actor.roleId)?.name;
  throw new AppError(
    'FORBIDDEN',
    `${subject}: this change needs the ${needed} role or a stronger one; the caller is ${role}`,
  );
}

export interface AccessDeps {
  projects: Pick<ProjectRepository, 'findById' | 'isMember' | 'visibleIds'>;
  brandKits: Pick<BrandKitRepository, 'findById'>;
  folders: Pick<FolderRepository, 'findInTeam'>;
}

export function createAccess({ projects, brandKits, folders }: AccessDeps) {
  async function seesProject(actor: Actor, projectId: number): Promise<boolean> {
    return seesEveryProject(actor.roleId) || projects.isMember(projectId, actor.userId);
  }

  return {
    /** Whether the actor sees the project (Owners and Admins see every project of their team, others their own). */
    seesProject,

    /** Ids of every project the actor sees, ascending. */
    async visibleProjectIds(actor: Actor): Promise<number[]> {
      return projects.visibleIds(projectScope(actor));
    },

    /** The project if the actor sees it (else 404) and holds `permission` (else 403). `field` names it in errors. */
    async requireProject(
      actor: Actor,
      projectId: number,
      permission: Permission,
      field = 'projectId',
    ): Promise<ProjectRow> {
      const project = await projects.findById(actor.teamId, projectId);
      if (!project || !(await seesProject(actor, project.id))) {
        throw new AppError(
          'NOT_FOUND',
          `${field}: project ${projectId} does not exist or is not visible to the caller`,
        );
      }
      requirePermission(actor, permission, `project ${projectId}`);
      return project;
    },

    /** A brand kit of the actor's team (else 404) if the actor holds `permission` (else 403). */
    async requireBrandKit(
      actor: Actor,
      brandKitId: number,
      permission: Permission,
      field = 'brandkitId',
    ): Promise<BrandKitRow> {
      const kit = await brandKits.findById(actor.teamId, brandKitId);
      if (!kit) throw new AppError('NOT_FOUND', `${field}: brand kit ${brandKitId} does not exist in this team`);
      requirePermission(actor, permission, `brand kit ${brandKitId}`);
      return kit;
    },

    /** A folder of a project the actor sees (else 404) if the actor holds `permission` (else 403). */
    async requireFolder(
      actor: Actor,
      folderId: number,
      permission: Permission,
      field = 'folderId',
    ): Promise<FolderRow> {
      const folder = await folders.findInTeam(actor.teamId, folderId);
      if (!folder || !(await seesProject(actor, folder.project_id))) {
        throw new AppError('NOT_FOUND', `${field}: folder ${folderId} does not exist or is not visible to the caller`);
      }
      requirePermission(actor, permission, `folder ${folderId}`);
      return folder;
    },
  };
}

export type Access = ReturnType<typeof createAccess>;

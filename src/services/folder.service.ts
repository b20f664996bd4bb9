// Folders of a project (SPEC §11): list the children of a folder with the breadcrumb to it, create, rename, move
// (never into its own subtree, never into another project) and delete (its subfolders move up; nothing is deleted
// with a folder).
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { AppError } from '../errors.js';
import type { Dialect } from '../storage/db/database.js';
import { createDesignRepository } from '../storage/db/repositories/designs.repository.js';
import {
  createFolderRepository,
  type FolderRepository,
  type FolderRow,
  type FolderView,
} from '../storage/db/repositories/folders.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { Access } from './access.js';

export interface FolderServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  folders: Pick<FolderRepository, 'findView' | 'listChildren' | 'pathTo'>;
  access: Pick<Access, 'requireProject' | 'requireFolder'>;
}

/** The folder as the seed shows it. */
function folderOf(view: FolderView) {
  return {
    id: view.id,
    name: view.name,
    parentId: view.parent_id,
    createdByUser: { id: view.created_by, name: view.created_by_name },
    // The seed shows null; answering it would cost a query per folder that no client of the seed reads.
    isParent: null,
    updatedAt: view.updated_at,
    createdAt: view.created_at,
    updatedByUser: { id: view.updated_by, name: view.updated_by_name },
  };
}

function otherProject(parent: FolderRow, projectId: number): AppError {
  return new AppError(
    'INVALID_MOVE',
    `parentId: folder ${parent.id} belongs to project ${parent.project_id}, not to project ${projectId}; ` +
      'a folder and its parent are always in the same project',
  );
}

function deletedMeanwhile(parentId: number): AppError {
  return new AppError('NOT_FOUND', `parentId: folder ${parentId} was deleted by another request meanwhile`);
}

export function createFolderService({ db, dialect, folders, access }: FolderServiceDeps) {
  async function viewOf(id: number) {
    const view = await folders.findView(id);
    if (!view) throw new Error(`folder ${id} vanished after it was written`);
    return folderOf(view);
  }

  /** Runs `fn` in a transaction that holds the project's folder tree still (see FolderRepository.lockTree). */
  function withTree<T>(
    projectId: number,
    fn: (tree: FolderRepository, tx: Kysely<Database>) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (tx) => {
      const tree = createFolderRepository(tx, dialect);
      await tree.lockTree(projectId);
      return fn(tree, tx);
    });
  }

  return {
    async list(actor: Actor, query: { projectId: number; parentId?: number }) {
      const project = await access.requireProject(actor, query.projectId, 'read');
      let parentId: number | null = null;
      if (query.parentId !== undefined) {
        const parent = await access.requireFolder(actor, query.parentId, 'read', 'parentId');
        if (parent.project_id !== project.id) {
          throw new AppError('NOT_FOUND', `parentId: folder ${parent.id} is not a folder of project ${project.id}`);
        }
        parentId = parent.id;
      }
      const [children, path] = await Promise.all([
        folders.listChildren(project.id, parentId),
        parentId === null ? [] : folders.pathTo(parentId),
      ]);
      return { folders: children.map(folderOf), path, rootFolderHash: null };
    },

    async create(actor: Actor, input: { projectId: number; name: string; parentId?: number }) {
      const project = await access.requireProject(actor, input.projectId, 'content:write');
      let parentId: number | null = null;
      if (input.parentId !== undefined) {
        const parent = await access.requireFolder(actor, input.parentId, 'read', 'parentId');
        if (parent.project_id !== project.id) throw otherProject(parent, project.id);
        parentId = parent.id;
      }
      const id = await withTree(project.id, async (tree) => {
        // Under the lock, as deletes are: the parent cannot disappear between this check and the insert.
        if (parentId !== null && (await tree.pathTo(parentId)).length === 0) throw deletedMeanwhile(parentId);
        return tree.insert({ projectId: project.id, parentId, name: input.name.trim(), userId: actor.userId });
      });
      return { folder: await viewOf(id) };
    },

    /** Renames and/or moves; `parentId` -1 or null moves to the project root, absent leaves the folder where it is. */
    async update(actor: Actor, input: { folderId: number; name?: string; parentId?: number | null }) {
      const folder = await access.requireFolder(actor, input.folderId, 'content:write');
      const changes: { name?: string; parent_id?: number | null } = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      let target: FolderRow | null = null;
      if (input.parentId !== undefined) {
        const toRoot = input.parentId === null || input.parentId === -1;
        target = toRoot ? null : await access.requireFolder(actor, input.parentId as number, 'read', 'parentId');
        if (target && target.project_id !== folder.project_id) throw otherProject(target, folder.project_id);
        changes.parent_id = target?.id ?? null;
      }
      if (Object.keys(changes).length > 0) {
        await withTree(folder.project_id, async (tree) => {
          // Inside the lock, so that another move cannot change the ancestors between this check and the update.
          const path = target ? await tree.pathTo(target.id) : [];
          if (target && path.length === 0) throw deletedMeanwhile(target.id);
          if (target && path.some((f) => f.id === folder.id)) {
            throw new AppError(
              'INVALID_MOVE',
              `parentId: folder ${target.id} is folder ${folder.id} itself or inside it; ` +
                'a folder cannot move into its own subtree',
            );
          }
          await tree.update(folder.id, changes, actor.userId);
        });
      }
      return { folder: await viewOf(folder.id) };
    },

    /** Deletes the folder; its subfolders and its designs move up to its parent. */
    async delete(actor: Actor, folderId: number): Promise<void> {
      const folder = await access.requireFolder(actor, folderId, 'content:write');
      await withTree(folder.project_id, async (tree, tx) => {
        // The parent as it is under the lock (a move may have changed it); no path: deleted meanwhile, nothing to do.
        const path = await tree.pathTo(folder.id);
        if (path.length === 0) return;
        const parentId = path.at(-2)?.id ?? null;
        await createDesignRepository(tx, dialect).moveOutOfFolder(folder.id, parentId, actor.userId);
        await tree.deleteKeepingChildren(folder.id, actor.userId);
      });
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;

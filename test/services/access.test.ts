// services/access.ts decides visibility before permission (SPEC §2): what the caller cannot see is NOT_FOUND for
// every role, a visible object the role may not change is FORBIDDEN. The decisions are checked against in-memory
// repositories, and visibleProjectIds against the real tables on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../../src/domain/actor.js';
import { AppError } from '../../src/errors.js';
import { createAccess, projectScope, requirePermission } from '../../src/services/access.js';
import type { BrandKitRow } from '../../src/storage/db/repositories/brand-kits.repository.js';
import { createBrandKitRepository } from '../../src/storage/db/repositories/brand-kits.repository.js';
import { createFolderRepository, type FolderRow } from '../../src/storage/db/repositories/folders.repository.js';
import {
  createProjectRepository,
  type ProjectRow,
  type ProjectScope,
} from '../../src/storage/db/repositories/projects.repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const TEAM = 1;
const actor = (roleId: number, userId = 10, teamId = TEAM): Actor => ({
  userId,
  teamId,
  roleId,
  name: 'Someone',
  credentialId: 1,
});
const OWNER = actor(1);
const ADMIN = actor(2);
const EDITOR = actor(3);
const VIEWER = actor(4);
const OTHER_TEAM_OWNER = actor(1, 99, 2);

const project = (id: number, teamId = TEAM) => ({ id, team_id: teamId }) as ProjectRow;

/** Projects 1 (EDITOR and VIEWER are users of it) and 2 (nobody is) of team 1; project 3 of team 2. */
function fakeAccess() {
  const projects = [project(1), project(2), project(3, 2)];
  const members = new Set(['1:10']);
  const scopes: ProjectScope[] = [];
  return {
    scopes,
    access: createAccess({
      projects: {
        findById: async (teamId, id) => projects.find((p) => p.id === id && p.team_id === teamId),
        isMember: async (projectId, userId) => members.has(`${projectId}:${userId}`),
        visibleIds: async (scope) => {
          scopes.push(scope);
          return [];
        },
      },
      brandKits: {
        findById: async (teamId, id) =>
          teamId === TEAM && id === 5 ? ({ id: 5, team_id: TEAM } as BrandKitRow) : undefined,
      },
      folders: {
        findInTeam: async (teamId, id) => {
          const folders = [
            { id: 7, project_id: 1 },
            { id: 8, project_id: 2 },
          ] as FolderRow[];
          return teamId === TEAM ? folders.find((f) => f.id === id) : undefined;
        },
      },
    }),
  };
}

async function rejects(promise: Promise<unknown>, code: string, message?: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, code);
    if (message) assert.equal(error.message, message);
    return true;
  });
}

describe('projectScope', () => {
  test('Owners and Admins see the whole team; Editors and Viewers their own projects', () => {
    assert.deepEqual(projectScope(OWNER), { teamId: TEAM, memberUserId: null });
    assert.deepEqual(projectScope(ADMIN), { teamId: TEAM, memberUserId: null });
    assert.deepEqual(projectScope(EDITOR), { teamId: TEAM, memberUserId: 10 });
    assert.deepEqual(projectScope(VIEWER), { teamId: TEAM, memberUserId: 10 });
  });
});

describe('requirePermission', () => {
  test('passes a role that holds the permission and refuses one that does not, naming both roles', async () => {
    requirePermission(EDITOR, 'content:write', 'project 1');
    requirePermission(VIEWER, 'read', 'project 1');
    await rejects(
      (async () => requirePermission(VIEWER, 'content:write', 'project 1'))(),
      'FORBIDDEN',
      'project 1: this change needs the Editor role or a stronger one; the caller is Viewer',
    );
    await rejects(
      (async () => requirePermission(EDITOR, 'team:manage', 'webhook 2'))(),
      'FORBIDDEN',
      'webhook 2: this change needs the Admin role or a stronger one; the caller is Editor',
    );
  });
});

describe('requireProject', () => {
  const { access } = fakeAccess();

  test('Owners and Admins get every project of their team, users of the project get it too', async () => {
    for (const caller of [OWNER, ADMIN]) {
      assert.equal((await access.requireProject(caller, 2, 'content:write')).id, 2);
    }
    assert.equal((await access.requireProject(EDITOR, 1, 'content:write')).id, 1);
    assert.equal((await access.requireProject(VIEWER, 1, 'read')).id, 1);
  });

  test('a project the caller is not a user of, of another team, or unknown, is NOT_FOUND for every role', async () => {
    for (const caller of [EDITOR, VIEWER]) {
      await rejects(
        access.requireProject(caller, 2, 'content:write'),
        'NOT_FOUND',
        'projectId: project 2 does not exist or is not visible to the caller',
      );
    }
    for (const caller of [OWNER, VIEWER]) await rejects(access.requireProject(caller, 3, 'read'), 'NOT_FOUND');
    await rejects(access.requireProject(OTHER_TEAM_OWNER, 1, 'read'), 'NOT_FOUND');
    await rejects(
      access.requireProject(OWNER, 42, 'read', 'newDesignProjectId'),
      'NOT_FOUND',
      'newDesignProjectId: project 42 does not exist or is not visible to the caller',
    );
  });

  test('a visible project the role may not change is FORBIDDEN', async () => {
    await rejects(access.requireProject(VIEWER, 1, 'content:write'), 'FORBIDDEN');
    await rejects(access.requireProject(EDITOR, 1, 'team:manage'), 'FORBIDDEN');
  });
});

describe('requireBrandKit', () => {
  const { access } = fakeAccess();

  test('a kit of the team is visible to every role; changing it needs an Editor', async () => {
    for (const caller of [OWNER, EDITOR, VIEWER]) assert.equal((await access.requireBrandKit(caller, 5, 'read')).id, 5);
    assert.equal((await access.requireBrandKit(EDITOR, 5, 'content:write')).id, 5);
    await rejects(access.requireBrandKit(VIEWER, 5, 'content:write'), 'FORBIDDEN');
  });

  test("another team's kit is NOT_FOUND, before any permission check", async () => {
    await rejects(
      access.requireBrandKit(OTHER_TEAM_OWNER, 5, 'read'),
      'NOT_FOUND',
      'brandkitId: brand kit 5 does not exist in this team',
    );
    await rejects(access.requireBrandKit({ ...VIEWER, teamId: 2 }, 5, 'content:write'), 'NOT_FOUND');
  });
});

describe('requireFolder', () => {
  const { access } = fakeAccess();

  test('a folder is visible exactly when its project is', async () => {
    assert.equal((await access.requireFolder(EDITOR, 7, 'content:write')).id, 7);
    assert.equal((await access.requireFolder(ADMIN, 8, 'content:write')).id, 8);
    await rejects(
      access.requireFolder(EDITOR, 8, 'read'),
      'NOT_FOUND',
      'folderId: folder 8 does not exist or is not visible to the caller',
    );
    await rejects(
      access.requireFolder(OTHER_TEAM_OWNER, 7, 'read', 'parentId'),
      'NOT_FOUND',
      'parentId: folder 7 does not exist or is not visible to the caller',
    );
  });

  test('NOT_FOUND comes before FORBIDDEN: a Viewer outside the project learns nothing', async () => {
    await rejects(access.requireFolder(VIEWER, 8, 'content:write'), 'NOT_FOUND');
    await rejects(access.requireFolder(VIEWER, 7, 'content:write'), 'FORBIDDEN');
  });
});

describe('visibleProjectIds', () => {
  test('asks the repository for the scope of the caller', async () => {
    const { access, scopes } = fakeAccess();
    await access.visibleProjectIds(OWNER);
    await access.visibleProjectIds(VIEWER);
    assert.deepEqual(scopes, [
      { teamId: TEAM, memberUserId: null },
      { teamId: TEAM, memberUserId: 10 },
    ]);
  });

  describe('on the database', () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp();
    });
    after(() => t.close());

    test('Owners and Admins get every project of the team, Editors and Viewers those they are users of', async () => {
      const db = t.runtime.db.kysely;
      const access = createAccess({
        projects: createProjectRepository(db),
        brandKits: createBrandKitRepository(db),
        folders: createFolderRepository(db, t.runtime.db.dialect),
      });
      const kit = await createBrandKitRepository(db).insert({
        teamId: t.owner.teamId,
        name: 'K',
        createdBy: t.owner.userId,
      });
      const projects = createProjectRepository(db);
      const make = async (teamId: number, createdBy: number) =>
        (
          await projects.insert({
            teamId,
            name: 'P',
            color: '#000000',
            description: null,
            brandKitId: kit.id,
            createdBy,
          })
        ).id;
      const editor = await t.userWith('Editor');
      const viewer = await t.userWith('Viewer');
      const admin = await t.userWith('Admin');
      const [p1, p2, p3] = [
        await make(t.owner.teamId, t.owner.userId),
        await make(t.owner.teamId, t.owner.userId),
        await make(t.owner.teamId, t.owner.userId),
      ];
      await projects.addUser(p1, editor.userId);
      await projects.addUser(p3, editor.userId);
      await projects.addUser(p2, viewer.userId);
      const other = await t.newTeam('Globex');
      const otherKit = await createBrandKitRepository(db).insert({
        teamId: other.teamId,
        name: 'K',
        createdBy: other.userId,
      });
      const theirs = (
        await projects.insert({
          teamId: other.teamId,
          name: 'P',
          color: '#000000',
          description: null,
          brandKitId: otherKit.id,
          createdBy: other.userId,
        })
      ).id;
      // Being a user of another team's project (which the API never allows) still shows nothing of that team.
      await projects.addUser(theirs, editor.userId);

      const as = (userId: number, roleId: number) => actor(roleId, userId, t.owner.teamId);
      assert.deepEqual(await access.visibleProjectIds(as(t.owner.userId, 1)), [p1, p2, p3]);
      assert.deepEqual(await access.visibleProjectIds(as(admin.userId, 2)), [p1, p2, p3]);
      assert.deepEqual(await access.visibleProjectIds(as(editor.userId, 3)), [p1, p3]);
      assert.deepEqual(await access.visibleProjectIds(as(viewer.userId, 4)), [p2]);
      assert.deepEqual(await access.visibleProjectIds(actor(1, other.userId, other.teamId)), [theirs]);
    });
  });
});

// What each team role may do (SPEC §2): a lower role id is a stronger role, and each permission names the weakest
// role that holds it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  can,
  PERMISSIONS,
  type Permission,
  ROLES,
  roleById,
  roleByName,
  seesEveryProject,
} from '../../src/domain/permissions.js';

describe('can()', () => {
  const expected: Record<string, Record<Permission, boolean>> = {
    Owner: { read: true, 'export:create': true, 'shareLink:create': true, 'content:write': true, 'team:manage': true },
    Admin: { read: true, 'export:create': true, 'shareLink:create': true, 'content:write': true, 'team:manage': true },
    Editor: {
      read: true,
      'export:create': true,
      'shareLink:create': true,
      'content:write': true,
      'team:manage': false,
    },
    Viewer: {
      read: true,
      'export:create': true,
      'shareLink:create': true,
      'content:write': false,
      'team:manage': false,
    },
  };

  for (const role of ROLES) {
    test(`${role.name} holds exactly its permissions`, () => {
      const held = Object.fromEntries(
        (Object.keys(PERMISSIONS) as Permission[]).map((permission) => [permission, can(role.id, permission)]),
      );
      assert.deepEqual(held, expected[role.name]);
    });
  }

  test('an unknown role id holds nothing', () => {
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      assert.equal(can(5, permission), false);
      assert.equal(can(99, permission), false);
    }
  });

  test('Owners and Admins see every project; Editors and Viewers do not', () => {
    assert.deepEqual(
      ROLES.map((r) => seesEveryProject(r.id)),
      [true, true, false, false],
    );
  });
});

describe('roles', () => {
  test('are the four of SPEC §2 in order', () => {
    assert.deepEqual(
      ROLES.map((r) => [r.id, r.name]),
      [
        [1, 'Owner'],
        [2, 'Admin'],
        [3, 'Editor'],
        [4, 'Viewer'],
      ],
    );
  });

  test('roleByName ignores case and surrounding spaces', () => {
    assert.equal(roleByName('owner')?.id, 1);
    assert.equal(roleByName('  ADMIN ')?.id, 2);
    assert.equal(roleByName('eDiToR')?.id, 3);
    assert.equal(roleByName('Viewer')?.id, 4);
    assert.equal(roleByName('superuser'), undefined);
    assert.equal(roleByName(''), undefined);
  });

  test('roleById finds the four ids only', () => {
    assert.equal(roleById(2)?.name, 'Admin');
    assert.equal(roleById(0), undefined);
    assert.equal(roleById(9), undefined);
  });
});

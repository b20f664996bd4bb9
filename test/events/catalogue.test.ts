// The webhook action catalogue is the one of SPEC §8: ids and names fixed, every entry complete.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { actionById, actionByName, CATALOGUE_RELEASED_AT, WEBHOOK_ACTIONS } from '../../src/events/catalogue.js';

describe('webhook action catalogue', () => {
  test('holds the actions of SPEC §8, the brand font and the batch actions with their ids', () => {
    assert.deepEqual(
      WEBHOOK_ACTIONS.map((a) => [a.id, a.name]),
      [
        [1, 'export/complete'],
        [2, 'export/failed'],
        [3, 'design/create'],
        [4, 'design/update'],
        [5, 'design/delete'],
        [6, 'project/create'],
        [7, 'project/delete'],
        [8, 'brandkit/assetsUploaded'],
        [9, 'user/create'],
        [10, 'user/delete'],
        [11, 'shareLink/create'],
        [12, 'designVersion/create'],
        [13, 'brandkit/fontAdded'],
        [14, 'brandkit/fontRemoved'],
        [15, 'shareLink/comment'],
        [16, 'shareLink/review'],
        [17, 'batch/completed'],
        [18, 'batch/row.failed'],
      ],
    );
  });

  test('every action has a description, a JSON config string and the release date', () => {
    for (const action of WEBHOOK_ACTIONS) {
      assert.deepEqual(Object.keys(action).sort(), ['config', 'createdAt', 'description', 'id', 'name'], action.name);
      assert.ok(action.description.length > 10, action.name);
      assert.equal(typeof action.config, 'string');
      assert.deepEqual(JSON.parse(action.config), {});
      assert.equal(action.createdAt, CATALOGUE_RELEASED_AT);
    }
    assert.match(CATALOGUE_RELEASED_AT, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('looks actions up by id and by name', () => {
    assert.equal(actionById(9)?.name, 'user/create');
    assert.equal(actionById(0), undefined);
    assert.equal(actionById(17)?.name, 'batch/completed');
    assert.equal(actionById(19), undefined);
    assert.equal(actionByName('export/failed').id, 2);
  });
});

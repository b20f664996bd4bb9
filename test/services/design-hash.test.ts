// A new design's hash and its sizes' hashes are unique across designs and sizes, checked in one statement inside the
// import's transaction (issue 21); a new hash that is taken makes the import start again with another. The hashes are
// random (one collision in about 10^10), so the test hands the service taken ones through its `newHash` seam.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OWNER } from '../../src/domain/permissions.js';
import { importDesign } from '../../src/services/design.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let projectId: number;

before(async () => {
  t = await startTestApp();
  const inject = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
  const kit = (await inject('/v1/brandkits/create', { name: 'Kit' })).json().response.brandKit.id;
  projectId = (await inject('/v1/projects', { name: 'Hashes', brandKitId: kit })).json().response.project.id;
});
after(() => t?.close());

function doc(sizeHash?: string) {
  return {
    name: 'Doc',
    sizes: [
      {
        name: 'Banner',
        width: 300,
        height: 250,
        ...(sizeHash && { hash: sizeHash }),
        slides: [{ elements: [{ name: 'title', type: 'text', x: 0, y: 0, width: 100, height: 20, text: 'Hi' }] }],
      },
    ],
  };
}

async function sizeHashesOf(designHash: string): Promise<string[]> {
  const rows = await t.runtime.db.kysely
    .selectFrom('design_sizes as s')
    .innerJoin('designs as d', 'd.id', 's.design_id')
    .select('s.hash')
    .where('d.hash', '=', designHash)
    .execute();
  return rows.map((r) => r.hash);
}

test('a taken design hash or size hash as the new hash makes the import start again; a taken size hash is replaced', async () => {
  const actor = { userId: t.owner.userId, teamId: t.owner.teamId, roleId: OWNER, name: 'Owner', credentialId: 0 };
  const first = await importDesign(t.runtime, actor, { projectId, name: 'First', document: doc('sizeaaa') });
  assert.deepEqual(await sizeHashesOf(first.template.id), ['sizeaaa'], 'a free hash the document brings is kept');

  const offered = [first.template.id, 'sizeaaa', 'bbbbbbb'];
  const second = await importDesign(
    t.runtime,
    actor,
    { projectId, name: 'Second', document: doc('sizeaaa') },
    { newHash: () => offered.shift() as string },
  );
  assert.equal(second.template.id, 'bbbbbbb', 'the first free hash offered');
  assert.equal(offered.length, 0);
  const [size] = await sizeHashesOf('bbbbbbb');
  assert.match(size, /^[a-z0-9]{7}$/);
  assert.notEqual(size, 'sizeaaa', "another design's size hash is not taken over");
  assert.deepEqual(await sizeHashesOf(first.template.id), ['sizeaaa'], 'the first design keeps its size');
  const named = await t.runtime.db.kysely.selectFrom('designs').select('name').where('name', '=', 'Second').execute();
  assert.equal(named.length, 1, 'the attempts with taken hashes left nothing behind');

  // Without collisions: the new hash and the size hashes are one statement, and a new design deletes no sizes.
  const quiet = t.runtime.db.statements();
  await importDesign(t.runtime, actor, { projectId, name: 'Third', document: doc() });
  const third = t.runtime.db.statements() - quiet;
  // The project; begin, the hashes, the design, its size, its design/create event, commit. It was 11 before: the new
  // hash checked on its own before the transaction, each check two statements, and a delete of the new design's sizes.
  assert.ok(third <= 7, `${third} statements`);
});

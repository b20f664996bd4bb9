// The OpenAPI document covers the whole contract (every path of the seed and of SPEC's extensions), every
// authenticated operation shows its permission, and declared routes that are not served yet validate their input and
// then answer 501 in the error envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Caller, startTestApp, type TestApp } from '../helpers/app.js';

/** Every method and path of the seed, in OpenAPI form. */
const SEED_OPERATIONS = [
  'POST /v1/export-with-changes',
  'POST /v1/export',
  'GET /v1/export/{exportId}',
  'GET /v1/templates',
  'DELETE /v1/templates',
  'GET /v1/templates/{templateHash}/design-sizes',
  'GET /v1/templates/fontVariants',
  'GET /v1/shareLink/{templateHash}',
  'POST /v1/shareLink/generate',
  'GET /v1/projects',
  'POST /v1/projects',
  'DELETE /v1/projects',
  'PUT /v1/projects',
  'GET /v1/project/users',
  'POST /v1/project/users',
  'DELETE /v1/project/users',
  'GET /v1/brandkits',
  'POST /v1/brandkits/create',
  'DELETE /v1/brandkits',
  'PUT /v1/brandkits',
  'POST /v1/brandkit/uploadAssets',
  'GET /v1/brandkit/{id}/assets',
  'GET /v1/users',
  'POST /v1/users',
  'DELETE /v1/users',
  'PUT /v1/users/updateTeamUserRole',
  'GET /v1/folders',
  'POST /v1/moveDesignToFolder',
  'GET /v1/designVersion',
  'POST /v1/designVersion',
  'PUT /v1/designVersion',
  'POST /v1/designVersion/restore',
  'GET /v1/adnetworks',
  'GET /v1/adnetworks/forAdserving',
  'GET /v1/adnetworks/forHtml',
  'GET /v1/webhooks',
  'POST /v1/webhooks',
  'DELETE /v1/webhooks',
  'PUT /v1/webhooks',
];

/** The extensions SPEC names. */
const EXTENSION_OPERATIONS = [
  'POST /v1/auth/token',
  'GET /v1/apiCredentials',
  'POST /v1/apiCredentials',
  'DELETE /v1/apiCredentials',
  'GET /v1/roles',
  'PUT /v1/templates',
  'POST /v1/templates/import',
  'GET /v1/templates/{hash}/document',
  'PUT /v1/templates/{hash}/document',
  'GET /v1/templates/{hash}/elements',
  'GET /v1/fonts',
  'GET /v1/schemas/design-document.json',
  'POST /v1/folders',
  'PUT /v1/folders',
  'DELETE /v1/folders',
  'POST /v1/brandkit/mediaFolders',
  'GET /v1/brandkit/{id}/mediaFolders',
  'GET /v1/webhookActions',
  'GET /v1/webhooks/secret',
  'POST /v1/webhooks/secret/rotate',
  'GET /v1/webhooks/deliveries',
  'POST /v1/webhooks/deliveries/{id}/redeliver',
];

interface Operation {
  'x-permission'?: string;
  security?: Record<string, string[]>[];
  deprecated?: boolean;
  summary?: string;
  tags?: string[];
}

interface OpenApiDocument {
  openapi: string;
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function operationsOf(doc: OpenApiDocument): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (HTTP_METHODS.has(method)) out.set(`${method.toUpperCase()} ${path}`, op);
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  let operations: Map<string, Operation>;
  before(async () => {
    t = await startTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
    operations = operationsOf(doc);
  });
  after(() => t.close());

  test('is OpenAPI 3.1 and holds every method and path of the seed', () => {
    assert.match(doc.openapi, /^3\.1\./);
    const missing = SEED_OPERATIONS.filter((op) => !operations.has(op));
    assert.deepEqual(missing, []);
  });

  test('holds every extension path of SPEC', () => {
    const missing = EXTENSION_OPERATIONS.filter((op) => !operations.has(op));
    assert.deepEqual(missing, []);
  });

  test('every authenticated /v1 operation names its permission and needs a bearer token', () => {
    // Signing in is what a person does before having a session (docs/studio.md).
    const open = new Set([
      'POST /v1/auth/token',
      'GET /v1/openapi.json',
      'POST /v1/auth/login',
      'POST /v1/auth/logout',
      'GET /v1/auth/invite/{token}',
      'POST /v1/auth/invite/accept',
    ]);
    const unguarded: string[] = [];
    for (const [key, op] of operations) {
      if (!key.split(' ')[1].startsWith('/v1/') || open.has(key)) continue;
      const security = op.security ?? doc.security ?? [];
      if (!op['x-permission'] || !security.some((s) => 'bearer' in s)) unguarded.push(key);
    }
    assert.deepEqual(unguarded, []);
  });

  test('every /v1 operation has a summary and a tag', () => {
    for (const [key, op] of operations) {
      if (!key.split(' ')[1].startsWith('/v1/')) continue;
      assert.ok(op.summary, `${key} has no summary`);
      assert.ok(op.tags?.length, `${key} has no tag`);
    }
  });

  test('permissions follow SPEC §2', () => {
    const expected: Record<string, string> = {
      'GET /v1/templates': 'read',
      'POST /v1/export': 'export:create',
      'POST /v1/export-with-changes': 'content:write',
      'POST /v1/shareLink/generate': 'shareLink:create',
      // Names an existing design: visibility (404) is checked before the permission (403), in the service.
      'POST /v1/moveDesignToFolder': 'read',
      // Names an existing brand kit: `read` on the route, content:write checked by the service after the lookup, so
      // that another team's kit is a 404 for every role (services/access.ts); a Viewer of the team still gets 403.
      'POST /v1/brandkit/uploadAssets': 'read',
      'GET /v1/webhooks': 'team:manage',
      'GET /v1/webhooks/secret': 'team:manage',
      'GET /v1/webhooks/deliveries': 'team:manage',
    };
    for (const [key, permission] of Object.entries(expected)) {
      assert.equal(operations.get(key)?.['x-permission'], permission, key);
    }
  });

  test('GET /v1/adnetworks is marked deprecated and its successors are not', () => {
    assert.equal(operations.get('GET /v1/adnetworks')?.deprecated, true);
    assert.notEqual(operations.get('GET /v1/adnetworks/forHtml')?.deprecated, true);
    assert.notEqual(operations.get('GET /v1/adnetworks/forAdserving')?.deprecated, true);
  });

  test('/docs renders the document for people as HTML', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
  });
});

describe('declared routes that are not served yet', () => {
  let t: TestApp;
  let viewer: Caller;
  before(async () => {
    t = await startTestApp();
    viewer = await t.userWith('Viewer');
  });
  after(() => t.close());

  const exportBody = { creativeHash: 'abc1234', type: 'png' };
  const withChanges = {
    templateHash: 'abc1234',
    type: 'HTML5',
    elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Hello' }] }],
    generalChanges: { backgroundColor: '#FFF' },
    exportSettings: { quality: 80, urlTarget: '_blank', allowedSizeHashesOnly: ['a1b2c3d'] },
  };

  test('the share link of an unknown design is a 404 in the error envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/shareLink/abc1234', headers: t.owner.headers });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().code, 'NOT_FOUND');
  });

  test('an export type is accepted in any letter case (then the unknown design is a 404)', async () => {
    for (const type of ['PNG', 'Jpeg', 'html5', 'mp4']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/export',
        headers: t.owner.headers,
        payload: { ...exportBody, type },
      });
      assert.equal(res.statusCode, 404, res.body);
      assert.match(res.json().error, /^creativeHash: design abc1234 does not exist/);
    }
  });

  test('a body with an unknown field is a 400 VALIDATION_FAILED before anything else', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { ...exportBody, colour: 'red' },
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.requestId, res.headers['x-request-id']);
    assert.deepEqual(
      body.details.map((d: { path: string }) => d.path),
      ['/colour'],
    );
  });

  test('an unknown field deep inside element changes is named by its path', async () => {
    const payload = structuredClone(withChanges);
    Object.assign(payload.elementsChanges[0].changes[0], { colour: 'red' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export-with-changes',
      headers: t.owner.headers,
      payload,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.match(res.json().error, /^elementsChanges\[0\]\.changes\[0\]\.colour: is not a known field/);
  });

  test('values outside their domain are a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...withChanges, type: 'bmp' }, /^type: must be one of png, jpg/],
      [{ ...withChanges, templateHash: 'ABC1234' }, /^templateHash: must be 7 lowercase letters or digits/],
      [
        { ...withChanges, generalChanges: { backgroundColor: 'red' } },
        /^generalChanges\.backgroundColor: must be a hex/,
      ],
      [{ ...withChanges, exportSettings: { quality: 101 } }, /^exportSettings\.quality: must be <= 100/],
      [{ ...withChanges, exportSettings: { scale: 0 } }, /^exportSettings\.scale: must be > 0/],
      [
        { ...withChanges, elementsChanges: [{ elementName: 'x', changes: [{ attribute: 'COLOR', value: '#FFF' }] }] },
        /^elementsChanges\[0\]\.changes\[0\]\.attribute: must be one of LABEL/,
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/export-with-changes',
        headers: t.owner.headers,
        payload,
      });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, 'VALIDATION_FAILED');
      assert.match(res.json().error, message);
    }
  });

  test('ids in query strings and paths are parsed strictly', async () => {
    const query = await t.app.inject({ method: 'GET', url: '/v1/folders?projectId=abc', headers: t.owner.headers });
    assert.equal(query.statusCode, 400);
    assert.equal(query.json().code, 'VALIDATION_FAILED');
    const path = await t.app.inject({ method: 'GET', url: '/v1/export/not-a-uuid', headers: t.owner.headers });
    assert.equal(path.statusCode, 400);
  });

  test('the permission is checked: a Viewer may export but not export with changes', async () => {
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: viewer.headers,
      payload: exportBody,
    });
    assert.equal(allowed.statusCode, 404, 'allowed, and then the design does not exist');
    const denied = await t.app.inject({
      method: 'POST',
      url: '/v1/export-with-changes',
      headers: viewer.headers,
      payload: withChanges,
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().code, 'FORBIDDEN');
    const webhooks = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: viewer.headers });
    assert.equal(webhooks.statusCode, 403);
  });

  test('without a token they are a 401, not a 501', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/projects' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'UNAUTHENTICATED');
  });
});

// A schema-driven sweep: every operation of the OpenAPI document receives malformed input (wrong types, missing
// fields, deep nesting, huge strings, bad path and query parameters). No answer may be a 5xx and every error answer
// carries the envelope {error, code, requestId}. The operations come from the document, so a new route is swept too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';

interface Operation {
  method: string;
  path: string;
  parameters?: { name: string; in: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> };
}

/** JSON text nested `depth` levels deep, written as text: JSON.stringify of such a value would overflow here. */
function nested(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

const WRONG: Record<string, unknown> = {
  string: 12,
  integer: 'twelve',
  number: 'twelve',
  boolean: 'yes',
  array: { not: 'an array' },
  object: 'not an object',
};

/** Malformed bodies for one operation, by the shape of its schema. */
function bodies(op: Operation): { label: string; payload: string }[] {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const props = schema?.properties ?? {};
  const wrongTypes: Record<string, unknown> = {};
  const huge: Record<string, unknown> = {};
  const deep: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    wrongTypes[name] = WRONG[prop.type ?? 'string'] ?? null;
    huge[name] = 'x'.repeat(200_000);
    deep.push(`${JSON.stringify(name)}:${nested(10_000)}`);
  }
  return [
    { label: 'empty object', payload: '{}' },
    { label: 'wrong types', payload: JSON.stringify(wrongTypes) },
    { label: 'huge strings', payload: JSON.stringify(huge) },
    { label: 'deep nesting in fields', payload: `{${deep.join(',')}}` },
    { label: 'deep nesting at the root', payload: nested(50_000) },
    { label: 'an array', payload: '[1,2,3]' },
    { label: 'a string', payload: '"text"' },
    { label: 'broken JSON', payload: '{"a":' },
  ];
}

const BAD_PARAMS = ['%ff', 'x'.repeat(10_000), '-1', '1.5', '99999999999999999999999', '%00', '..%2f..%2fetc'];

describe('sweep: malformed input to every operation', () => {
  let t: TestApp;
  const ops: Operation[] = [];
  before(async () => {
    t = await startTestApp();
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) ops.push({ ...op, method, path });
      }
    }
  });
  after(async () => t?.close());

  async function expectEnvelope(
    label: string,
    req: { method: string; url: string; payload?: string; headers?: Record<string, string> },
  ) {
    const res = await t.app.inject({
      ...req,
      method: req.method.toUpperCase() as 'GET',
      headers: { ...t.owner.headers, 'content-type': 'application/json', ...req.headers },
    });
    assert.ok(res.statusCode < 500, `${label}: ${req.method} ${req.url.slice(0, 120)} answered ${res.statusCode}`);
    if (res.statusCode >= 400) {
      let body: Record<string, unknown> = {};
      try {
        body = res.json();
      } catch {
        assert.fail(`${label}: ${req.method} ${req.url.slice(0, 120)} answered ${res.statusCode} without JSON`);
      }
      assert.equal(typeof body.error, 'string', `${label}: ${req.method} ${req.url.slice(0, 80)} has no error`);
      assert.equal(typeof body.code, 'string', `${label}: no code`);
      assert.equal(typeof body.requestId, 'string', `${label}: no requestId`);
      assert.doesNotMatch(String(body.error), /call stack|0x[0-9a-f]{6,}/i, `${label}: leaks internals`);
    }
    return res;
  }

  function concrete(op: Operation, value: string): string {
    return op.path.replace(/\{[^}]+\}/g, value);
  }

  test('the document lists the operations the sweep needs', () => {
    assert.ok(ops.length > 40, `only ${ops.length} operations`);
  });

  test('malformed bodies never answer 5xx and always carry the envelope', async () => {
    for (const op of ops) {
      if (op.method === 'get' || op.method === 'delete') continue;
      for (const { label, payload } of bodies(op)) {
        await expectEnvelope(label, { method: op.method, url: concrete(op, '1'), payload });
      }
    }
  });

  test('bad path parameters never answer 5xx and always carry the envelope', async () => {
    for (const op of ops.filter((o) => o.path.includes('{'))) {
      for (const bad of BAD_PARAMS) {
        await expectEnvelope(`path ${bad.slice(0, 10)}`, {
          method: op.method,
          url: concrete(op, bad),
          payload: op.method === 'get' || op.method === 'delete' ? undefined : '{}',
        });
      }
    }
  });

  test('bad query parameters never answer 5xx and always carry the envelope', async () => {
    for (const op of ops) {
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const cases = [
        query.map((p) => `${encodeURIComponent(p.name)}=%ff`).join('&'),
        query.map((p) => `${encodeURIComponent(p.name)}=${'9'.repeat(5000)}`).join('&'),
        query.map((p) => `${encodeURIComponent(p.name)}=a&${encodeURIComponent(p.name)}=b`).join('&'),
        'unknownParameter=1',
      ];
      for (const qs of cases) {
        const res = await expectEnvelope(`query ${qs.slice(0, 20)}`, {
          method: op.method,
          url: `${concrete(op, '1')}?${qs}`,
          payload: op.method === 'get' || op.method === 'delete' ? undefined : '{}',
        });
        if (qs === 'unknownParameter=1' && op.path.startsWith('/v1/')) {
          assert.equal(res.statusCode, 400, `${op.method} ${op.path} ignored an unknown query parameter`);
        }
      }
    }
  });
});

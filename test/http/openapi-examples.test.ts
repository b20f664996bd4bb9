// Issue 15: /docs showed generated noise for examples ("type": "GIf", every format's settings at once). Every operation
// with a body shows a real example of it, every operation documents its 4xx answers in the error envelope with an
// example, and every example in the document validates against the schema it illustrates.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startTestApp, type TestApp } from '../helpers/app.js';

interface Media {
  schema: object;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
}

/** Operations of the seed whose answer /docs shows by example too. */
const ANSWERED = [
  'POST /v1/auth/token',
  'GET /v1/templates',
  'POST /v1/templates/import',
  'GET /v1/templates/{templateHash}/design-sizes',
  'GET /v1/templates/{hash}/elements',
  'POST /v1/export-with-changes',
  'POST /v1/export',
  'GET /v1/export/{exportId}',
  'GET /v1/projects',
  'POST /v1/projects',
  'POST /v1/webhooks',
  'GET /v1/shareLink/{templateHash}',
  'POST /v1/shareLink/generate',
  'POST /v1/renderUrls',
];

function examplesOf(media: Media): unknown[] {
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((e) => e.value),
  ];
}

describe('the examples of the OpenAPI document', () => {
  let t: TestApp;
  let operations: [string, Operation][];
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  /** Validates each example of `media` against its schema; answers how many there were. */
  function check(where: string, media: Media): number {
    const examples = examplesOf(media);
    const validate = ajv.compile(media.schema);
    for (const example of examples) {
      assert.ok(validate(example), `${where}: its example breaks its schema: ${ajv.errorsText(validate.errors)}`);
    }
    return examples.length;
  }

  before(async () => {
    t = await startTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json() as { paths: Record<string, Record<string, Operation>> };
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
    );
    assert.ok(operations.length > 80, `${operations.length} operations`);
  });
  after(async () => {
    await t?.close();
  });

  test('every operation with a body shows an example of it that its schema accepts', () => {
    const missing: string[] = [];
    for (const [name, op] of operations) {
      if (!op.requestBody) continue;
      for (const [type, media] of Object.entries(op.requestBody.content)) {
        if (check(`${name} body (${type})`, media) === 0) missing.push(name);
      }
    }
    assert.deepEqual(missing, [], 'operations whose body has no example (add them to src/http/openapi-examples.ts)');
  });

  test('the service itself accepts every example body: none is refused as invalid', async () => {
    // Path parameters get well-formed values; the objects they name do not exist, so answers are 404s and the like,
    // but never a 400 VALIDATION_FAILED: the examples pass the real validation, not only the published schema.
    const params: Record<string, string> = {
      hash: 'k3x9q2m',
      templateHash: 'k3x9q2m',
      token: 'A'.repeat(22),
      commentId: '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
      id: '1',
    };
    const refused: string[] = [];
    for (const [name, op] of operations) {
      const example = op.requestBody?.content['application/json']?.example;
      if (example === undefined) continue;
      const [method, path] = name.split(' ');
      const url = path.replace(/\{(\w+)\}/g, (_, param: string) => params[param] ?? '1');
      const res = await t.app.inject({
        method: method as 'POST',
        url,
        headers: { ...t.owner.headers, 'content-type': 'application/json' },
        payload: JSON.stringify(example),
      });
      if (res.statusCode === 400) refused.push(`${name}: ${res.body}`);
    }
    assert.deepEqual(refused, []);
  });

  test('the export examples are one format with its own settings, not every format at once', () => {
    const body = operations.find(([name]) => name === 'POST /v1/export-with-changes')?.[1].requestBody;
    const example = body?.content['application/json'].example as Record<string, Record<string, unknown>>;
    assert.equal(example.type as unknown, 'png');
    assert.deepEqual(example.exportSettings, { scale: 2 });
  });

  test('every operation documents its 4xx answers in the error envelope, each with an example', () => {
    for (const [name, op] of operations) {
      const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
      assert.ok(errors.length > 0, `${name} documents no 4xx answer`);
      for (const [status, answer] of errors) {
        const media = answer.content?.['application/json'];
        assert.ok(media, `${name} ${status} has no JSON body`);
        assert.deepEqual(
          (media.schema as { required?: string[] }).required,
          ['error', 'code', 'requestId'],
          `${name} ${status} is the envelope`,
        );
        assert.equal(check(`${name} ${status}`, media), 1, `${name} ${status} has an example`);
        const { code } = media.example as { code: string };
        assert.match(
          answer.description,
          new RegExp(`\\b${code}\\b`),
          `${name} ${status}: the example's code is listed`,
        );
      }
    }
  });

  test('the answers of the seed operations show an example that their schema accepts', () => {
    for (const name of ANSWERED) {
      const op = operations.find(([n]) => n === name)?.[1];
      assert.ok(op, name);
      const media = op.responses['200'].content?.['application/json'];
      assert.ok(media, `${name} 200 has a JSON body`);
      assert.equal(check(`${name} 200`, media), 1, `${name} 200 has an example`);
    }
    // And no other answer carries an example its schema refuses.
    for (const [name, op] of operations) {
      const media = op.responses['200']?.content?.['application/json'];
      if (media) check(`${name} 200`, media);
    }
  });
});

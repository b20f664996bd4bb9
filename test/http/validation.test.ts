// Request validation messages (STYLE 5): each names the field, the rule and what arrived; bodies are never coerced,
// query strings are, strictly.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Type } from 'typebox';
import { describeValidation, pointerToPath, validatorCompiler } from '../../src/http/validation.js';

function compile(schema: object, httpPart: 'body' | 'querystring' = 'body'): ValidateFunction {
  return validatorCompiler({ schema, method: 'POST', url: '/test', httpPart }) as unknown as ValidateFunction;
}

/** Validates `data` and answers what the error handler would say about it. */
function problems(schema: object, data: unknown, httpPart: 'body' | 'querystring' = 'body') {
  const validate = compile(schema, httpPart);
  assert.equal(validate(data), false, 'the data must be invalid');
  return describeValidation(validate.errors as ErrorObject[], httpPart);
}

const Body = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 5 }),
    email: Type.Optional(Type.String({ format: 'email' })),
    roleId: Type.Optional(Type.Integer({ enum: [1, 2, 3, 4] })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    tags: Type.Optional(Type.Array(Type.Object({ label: Type.String() }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);

describe('pointerToPath', () => {
  test('turns JSON pointers into the paths people write', () => {
    assert.equal(pointerToPath('/elementsChanges/0/changes/1/value'), 'elementsChanges[0].changes[1].value');
    assert.equal(pointerToPath('/name'), 'name');
    assert.equal(pointerToPath('/0'), '[0]');
    assert.equal(pointerToPath('/0/name'), '[0].name');
    assert.equal(pointerToPath('/a/b/c'), 'a.b.c');
    assert.equal(pointerToPath(''), '');
  });

  test('unescapes ~1 and ~0', () => {
    assert.equal(pointerToPath('/a~1b/c~0d'), 'a/b.c~d');
  });
});

describe('describeValidation', () => {
  test('required names the missing field', () => {
    const { message, details } = problems(Body, {});
    assert.equal(message, 'name: is required');
    assert.deepEqual(details, [{ path: '/name', in: 'body', message: 'is required' }]);
  });

  test('additionalProperties names the unknown field and the known ones', () => {
    const { message, details } = problems(Body, { name: 'a', nmae: 'b' });
    assert.equal(message, 'nmae: is not a known field (known fields: name, email, roleId, count, tags)');
    assert.deepEqual(details, [
      { path: '/nmae', in: 'body', message: 'is not a known field (known fields: name, email, roleId, count, tags)' },
    ]);
  });

  test('type says what was expected and what arrived; bodies are not coerced', () => {
    const { message, details } = problems(Body, { name: 'a', count: '5' });
    assert.equal(message, 'count: must be an integer, received "5"');
    assert.deepEqual(details, [{ path: '/count', in: 'body', message: 'must be an integer, received "5"' }]);
    assert.equal(problems(Body, { name: 7 }).message, 'name: must be a string, received 7');
    assert.equal(problems(Body, []).message, 'body: must be a JSON object, received []');
  });

  test('enum lists the allowed values', () => {
    assert.equal(problems(Body, { name: 'a', roleId: 9 }).message, 'roleId: must be one of 1, 2, 3, 4, received 9');
  });

  test('format names the format in words', () => {
    assert.equal(
      problems(Body, { name: 'a', email: 'nope' }).message,
      'email: must be an email address, received "nope"',
    );
    const Uuid = Type.Object({ id: Type.String({ format: 'uuid' }) });
    assert.equal(problems(Uuid, { id: 'x' }).message, 'id: must be a UUID, received "x"');
  });

  test('minimum and maximum give the bound and the value', () => {
    assert.equal(problems(Body, { name: 'a', count: 101 }).message, 'count: must be <= 100, received 101');
    assert.equal(problems(Body, { name: 'a', count: 0 }).message, 'count: must be >= 1, received 0');
  });

  test('minLength 1 and maxLength read naturally', () => {
    assert.equal(problems(Body, { name: '' }).message, 'name: must not be empty');
    assert.equal(problems(Body, { name: 'toolong' }).message, 'name: must be at most 5 characters long');
  });

  test('nested paths use brackets for array items', () => {
    const { message, details } = problems(Body, { name: 'a', tags: [{ label: 'x' }, { label: 3 }] });
    assert.equal(message, 'tags[1].label: must be a string, received 3');
    assert.equal(details[0].path, '/tags/1/label');
  });

  test('every problem is listed and the summary counts the others', () => {
    const { message, details } = problems(Body, { count: 'x', extra: true });
    assert.deepEqual(
      details.map((d) => d.path),
      ['/name', '/extra', '/count'],
    );
    assert.equal(message, 'name: is required (and 2 more problem(s), see details)');
  });

  test('long received values are shortened', () => {
    const { message } = problems(Body, { name: 'a', count: 'x'.repeat(100) });
    assert.equal(message, `count: must be an integer, received "${'x'.repeat(56)}...`);
  });

  test('query strings are coerced strictly and say where the field is', () => {
    const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) });
    const validate = compile(Query, 'querystring');
    const ok = { limit: '50' };
    assert.equal(validate(ok), true);
    assert.deepEqual(ok, { limit: 50 });

    const abc = problems(Query, { limit: 'abc' }, 'querystring');
    assert.equal(abc.message, 'limit (query): must be an integer, received "abc"');
    assert.deepEqual(abc.details, [{ path: '/limit', in: 'query', message: 'must be an integer, received "abc"' }]);
    assert.equal(
      problems(Query, { limit: '101' }, 'querystring').message,
      'limit (query): must be <= 100, received 101',
    );
  });

  test('an x-rule on a pattern replaces the regular expression in the message', () => {
    const Colour = Type.Object({ color: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', 'x-rule': 'needs #RRGGBB' }) });
    assert.equal(problems(Colour, { color: 'red' }).message, 'color: needs #RRGGBB, received "red"');
    const Bare = Type.Object({ code: Type.String({ pattern: '^[a-z]+$' }) });
    assert.equal(problems(Bare, { code: 'A1' }).message, 'code: must match ^[a-z]+$, received "A1"');
  });
});

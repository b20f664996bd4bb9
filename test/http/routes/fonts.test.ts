// GET /v1/fonts, GET /v1/templates/fontVariants (by fontFamily; by templateHash in templates.test.ts) and the
// published JSON Schema of the design document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { designDocumentJsonSchema } from '../../../src/domain/design.schema.js';
import { fontCatalogue } from '../../../src/render/text/fonts.js';
import { springSale } from '../../domain/design-fixtures.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('fonts and the design document schema over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = t.owner.headers) =>
    t.app.inject({ method: 'GET', url, headers });

  test('GET /v1/fonts lists the catalogue as { response: [{ fontFamily, variants, scripts }] }', async () => {
    const res = await get('/v1/fonts');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    assert.deepEqual(body.response, fontCatalogue());
    const inter = body.response.find((f: { fontFamily: string }) => f.fontFamily === 'Inter');
    assert.deepEqual(Object.keys(inter).sort(), ['fontFamily', 'scripts', 'variants']);
    assert.ok(inter.variants.includes('700italic'));
    assert.ok(body.response.length >= 28);
  });

  test('a Viewer may read the catalogue; without a token it is a 401', async () => {
    const viewer = await t.userWith('Viewer');
    assert.equal((await get('/v1/fonts', viewer.headers)).statusCode, 200);
    const anonymous = await get('/v1/fonts', {});
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().code, 'UNAUTHENTICATED');
  });

  test('GET /v1/templates/fontVariants?fontFamily= answers that family’s variants, whatever the letter case', async () => {
    const res = await get('/v1/templates/fontVariants?fontFamily=lato');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      response: [
        {
          fontFamily: 'Lato',
          variants: [
            '100',
            '100italic',
            '300',
            '300italic',
            '400',
            '400italic',
            '700',
            '700italic',
            '900',
            '900italic',
          ],
        },
      ],
    });
    const spaced = await get(`/v1/templates/fontVariants?fontFamily=${encodeURIComponent('Playfair Display')}`);
    assert.equal(spaced.json().response[0].fontFamily, 'Playfair Display');
  });

  test('an unknown family is a 404 naming it', async () => {
    const res = await get('/v1/templates/fontVariants?fontFamily=Comic%20Sans');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
    assert.equal(
      res.json().error,
      'fontFamily (query): the font catalogue has no family "Comic Sans"; GET /v1/fonts lists them',
    );
  });

  test('neither templateHash nor fontFamily, or elementName alone, is a 400', async () => {
    const none = await get('/v1/templates/fontVariants');
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().code, 'VALIDATION_FAILED');
    assert.equal(none.json().error, 'query string: give templateHash or fontFamily');
    assert.deepEqual(none.json().details, [{ path: '/', in: 'query', message: 'give templateHash or fontFamily' }]);
    const alone = await get('/v1/templates/fontVariants?elementName=headline&fontFamily=Inter');
    assert.equal(alone.statusCode, 400);
    assert.deepEqual(alone.json().details, [{ path: '/elementName', in: 'query', message: 'needs templateHash' }]);
  });

  test('by templateHash the hash’s form is checked first; an unknown design is a 404 (templates.test.ts has more)', async () => {
    const res = await get('/v1/templates/fontVariants?templateHash=abc1234&elementName=headline');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
    assert.equal(res.json().error, 'templateHash: design abc1234 does not exist or is not visible to the caller');
    const bad = await get('/v1/templates/fontVariants?templateHash=ABC');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /^templateHash \(query\): must be 7 lowercase letters or digits/);
  });

  test('GET /v1/schemas/design-document.json serves the JSON Schema as is, and it validates documents', async () => {
    const res = await get('/v1/schemas/design-document.json');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const schema = res.json();
    assert.deepEqual(schema, designDocumentJsonSchema());
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.deepEqual(schema.required, ['name', 'sizes']);
    // A standalone draft 2020-12 validator, as a client would use it.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    assert.equal(validate(springSale()), true, JSON.stringify(validate.errors));
    const bad = springSale();
    bad.sizes[0].width = 9000;
    assert.equal(validate(bad), false);
    assert.deepEqual(
      validate.errors?.map((e) => e.instancePath),
      ['/sizes/0/width'],
    );
  });

  test('an import body is validated against the real document schema, each problem at its exact path', async () => {
    const document = springSale();
    const elements = (document.sizes[0].slides as { elements: Record<string, unknown>[] }[])[0].elements;
    elements[1].color = 'red';
    elements[2].type = 'picture';
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId: 1, name: 'Spring sale', document },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.deepEqual(res.json().details, [
      {
        path: '/document/sizes/0/slides/0/elements/1/color',
        in: 'body',
        message:
          'must be a colour: #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a) or transparent, received "red"',
      },
      {
        path: '/document/sizes/0/slides/0/elements/2/type',
        in: 'body',
        message: 'must be one of text, image, shape, button, svg, code, video, audio, received "picture"',
      },
    ]);
  });

  test('the OpenAPI document shows the real design document in the import body', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const body = doc.paths['/v1/templates/import'].post.requestBody.content['application/json'].schema;
    const document = body.properties.document;
    assert.deepEqual(document.required, ['name', 'sizes']);
    assert.ok(document.properties.sizes.items.properties.slides.items.properties.elements);
  });
});

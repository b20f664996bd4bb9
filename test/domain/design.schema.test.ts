// The design document: the SPEC §5 example is valid, each limit of SPEC §9 and each semantic rule is refused with the
// exact path, the rule and the value received; normalise fills in what the service owns; migrate guards versions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CURRENT_DOCUMENT_VERSION, migrateDocument } from '../../src/domain/design.migrate.js';
import {
  type DesignDocument,
  normaliseDocument,
  readDocument,
  semanticProblems,
  validateDocument,
} from '../../src/domain/design.schema.js';
import { STANDARD_SIZES, sizeKind, standardSize } from '../../src/domain/standard-sizes.js';
import { AppError } from '../../src/errors.js';
import { springSale } from './design-fixtures.js';

/** Runs `fn`, which must throw an AppError, and returns it. */
function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error;
  }
  assert.fail('expected an AppError');
}

function paths(error: AppError): string[] {
  return (error.details ?? []).map((d) => d.path);
}

const element = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'shape',
  x: 0,
  y: 0,
  width: 10,
  height: 10,
  ...extra,
});

function withElements(elements: unknown[]) {
  const doc = springSale();
  (doc.sizes[0].slides as { elements: unknown[] }[])[0].elements = elements;
  return doc;
}

describe('validateDocument', () => {
  test('accepts the SPEC §5 example and returns a copy with every default filled in', () => {
    const input = springSale();
    const before = structuredClone(input);
    const doc = validateDocument(input);
    assert.deepEqual(input, before, 'the input is not touched');
    assert.equal(doc.version, CURRENT_DOCUMENT_VERSION);
    assert.equal(doc.sizes[0].measureUnit, 'px');
    const [photo, headline, cta] = doc.sizes[0].slides[0].elements;
    assert.deepEqual(
      { rotation: photo.rotation, opacity: photo.opacity, visible: photo.visible, animations: photo.animations },
      { rotation: 0, opacity: 1, visible: true, animations: [] },
    );
    assert.equal(headline.type, 'text');
    if (headline.type === 'text') {
      assert.equal(headline.fontVariant, '700');
      assert.equal(headline.lineHeight, 1.2);
      assert.equal(headline.markdown, false);
    }
    assert.equal(cta.type, 'button');
    if (cta.type === 'button') {
      assert.equal(cta.align, 'center');
      assert.equal(cta.verticalAlign, 'middle');
    }
  });

  test('refuses each SPEC §9 limit at its path', () => {
    const cases: [string, (doc: ReturnType<typeof springSale>) => void, string, RegExp][] = [
      [
        '101 sizes',
        (doc) => {
          doc.sizes = Array.from({ length: 101 }, () => structuredClone(doc.sizes[0]));
        },
        '/sizes',
        /^sizes: must hold at most 100 items/,
      ],
      [
        'no size',
        (doc) => {
          doc.sizes = [];
        },
        '/sizes',
        /^sizes: must hold at least 1 item/,
      ],
      [
        '51 slides',
        (doc) => {
          doc.sizes[0].slides = Array.from({ length: 51 }, () => ({ duration: 1, elements: [] }));
        },
        '/sizes/0/slides',
        /^sizes\[0\]\.slides: must hold at most 50 items/,
      ],
      [
        '501 elements in a slide',
        (doc) => {
          doc.sizes[0].slides = [{ elements: Array.from({ length: 501 }, (_, i) => element(`e${i}`)) }];
        },
        '/sizes/0/slides/0/elements',
        /^sizes\[0\]\.slides\[0\]\.elements: must hold at most 500 items/,
      ],
      [
        'a side over 8,000 px',
        (doc) => {
          doc.sizes[0].width = 8001;
        },
        '/sizes/0/width',
        /^sizes\[0\]\.width: must be <= 8000, received 8001/,
      ],
      [
        'a side of 0 px',
        (doc) => {
          doc.sizes[0].height = 0;
        },
        '/sizes/0/height',
        /^sizes\[0\]\.height: must be >= 1, received 0/,
      ],
      [
        'a fractional side',
        (doc) => {
          doc.sizes[0].width = 300.5;
        },
        '/sizes/0/width',
        /^sizes\[0\]\.width: must be an integer, received 300\.5/,
      ],
    ];
    for (const [what, mutate, path, message] of cases) {
      const doc = springSale();
      mutate(doc);
      const error = failure(() => validateDocument(doc));
      assert.equal(error.code, 'VALIDATION_FAILED', what);
      assert.equal(error.status, 400);
      assert.deepEqual(paths(error), [path], what);
      assert.match(error.message, message, what);
    }
  });

  test('500 elements in a slide, 50 slides and 100 sizes are still fine', () => {
    const doc = springSale();
    doc.sizes[0].slides = Array.from({ length: 50 }, (_, s) => ({
      elements: s === 0 ? Array.from({ length: 500 }, (_, i) => element(`e${i}`)) : [],
    }));
    doc.sizes = Array.from({ length: 100 }, () => structuredClone(doc.sizes[0]));
    assert.equal(validateDocument(doc).sizes.length, 100);
  });

  test('names the field, the rule and the value received for element fields', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [
        element('a', { type: 'text', color: 'red' }),
        '/sizes/0/slides/0/elements/0/color',
        'must be a colour: #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a) or transparent, received "red"',
      ],
      [
        element('a', { type: 'picture' }),
        '/sizes/0/slides/0/elements/0/type',
        'must be one of text, image, shape, button, svg, code, video, audio, received "picture"',
      ],
      [element('a', { opacity: 1.5 }), '/sizes/0/slides/0/elements/0/opacity', 'must be <= 1, received 1.5'],
      [
        element('a', { link: 'javascript:alert(1)' }),
        '/sizes/0/slides/0/elements/0/link',
        'must be an http:// or https:// URL, received "javascript:alert(1)"',
      ],
      [element('a', { type: 'image' }), '/sizes/0/slides/0/elements/0/src', 'is required'],
      [
        element('a', { type: 'text', fontVariant: 'bold' }),
        '/sizes/0/slides/0/elements/0/fontVariant',
        'must be a weight 100..900 in steps of 100, optionally followed by italic (400, 700italic), received "bold"',
      ],
      [
        element('a', { animations: [{ effect: 'fade', easing: 'cubic-bezier(1.5, 0, 0, 1)' }] }),
        '/sizes/0/slides/0/elements/0/animations/0/easing',
        'must be linear, easeIn, easeOut, easeInOut or cubic-bezier(x1, y1, x2, y2) with x1 and x2 in 0..1, received "cubic-bezier(1.5, 0, 0, 1)"',
      ],
      [
        element('a', { animations: [{ effect: 'spin' }] }),
        '/sizes/0/slides/0/elements/0/animations/0/effect',
        'must be one of fade, slide, zoom, rotate, blur, received "spin"',
      ],
      [
        element('a', { fill: 'linear-gradient(90deg, #FFF)' }),
        '/sizes/0/slides/0/elements/0/fill',
        'must be a colour (hex, rgb(), rgba(), transparent) or linear-gradient(<angle>deg, <colour> <stop>%, …), received "linear-gradient(90deg, #FFF)"',
      ],
    ];
    for (const [bad, path, message] of cases) {
      const error = failure(() => validateDocument(withElements([bad])));
      assert.deepEqual(error.details?.[0], { path, in: 'body', message });
    }
  });

  test('an unknown field is refused and the known ones are listed', () => {
    const error = failure(() => validateDocument(withElements([element('a', { colour: '#FFF' })])));
    assert.equal(error.details?.[0].path, '/sizes/0/slides/0/elements/0/colour');
    assert.match(error.details?.[0].message ?? '', /^is not a known field \(known fields: name, type, x, y, .*fill/);
    const top = failure(() => validateDocument({ ...springSale(), title: 'x' }));
    assert.deepEqual(paths(top), ['/title']);
  });

  test('accepts every colour and paint form it documents', () => {
    const fills = [
      '#FFF',
      '#FFFA',
      '#0F172A',
      '#0F172A80',
      'rgb(1, 2, 3)',
      'rgba(1,2,3,0.5)',
      'transparent',
      'linear-gradient(90deg, #F59E0B 0%, rgba(0, 0, 0, .5) 100%)',
      'linear-gradient(#FFF, #000)',
    ];
    const doc = withElements(fills.map((fill, i) => element(`e${i}`, { fill })));
    assert.equal(validateDocument(doc).sizes[0].slides[0].elements.length, fills.length);
  });

  test('loop is a count from 1 to 100 or "infinite"', () => {
    assert.equal(validateDocument({ ...springSale(), loop: 'infinite' }).loop, 'infinite');
    const { loop: _, ...withoutLoop } = springSale();
    assert.equal(validateDocument(withoutLoop).loop, 1);
    const error = failure(() => validateDocument({ ...springSale(), loop: 'forever' }));
    assert.ok(paths(error).every((p) => p === '/loop'));
    assert.match(error.message, /^loop: /);
  });

  test('paths start at the document’s place in the request body', () => {
    const doc = springSale();
    doc.sizes[0].width = 0;
    const error = failure(() => validateDocument(doc, { pointer: '/document' }));
    assert.deepEqual(paths(error), ['/document/sizes/0/width']);
    assert.match(error.message, /^document\.sizes\[0\]\.width: must be >= 1/);
  });
});

describe('semantic rules', () => {
  test('an element name is unique within its size, across its slides', () => {
    const doc = springSale();
    doc.sizes[0].slides = [{ elements: [element('logo')] }, { elements: [element('other'), element('logo')] }];
    const error = failure(() => validateDocument(doc));
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.deepEqual(error.details, [
      {
        path: '/sizes/0/slides/1/elements/1/name',
        in: 'body',
        message:
          "element name 'logo' is already used in this size by sizes[0].slides[0].elements[0]; names must be unique within a size",
      },
    ]);
    assert.match(error.message, /^sizes\[0\]\.slides\[1\]\.elements\[1\]\.name: element name 'logo'/);
  });

  test('the same name in two sizes is fine when the type is the same, refused when it is not', () => {
    const doc = springSale();
    const second = structuredClone(doc.sizes[0]);
    second.name = 'Leaderboard';
    doc.sizes.push(second);
    assert.equal(validateDocument(doc).sizes.length, 2);
    (second.slides as { elements: Record<string, unknown>[] }[])[0].elements[0] = element('photo');
    const error = failure(() => validateDocument(doc));
    assert.deepEqual(error.details, [
      {
        path: '/sizes/1/slides/0/elements/0/type',
        in: 'body',
        message:
          "element 'photo' is an image at sizes[0].slides[0].elements[0] but a shape here; an element shared by name across sizes must keep one type",
      },
    ]);
  });

  test('size hashes are distinct', () => {
    const doc = springSale();
    doc.sizes[0].hash = 'abc1234';
    doc.sizes.push({ ...structuredClone(doc.sizes[0]), name: 'Copy' });
    const error = failure(() => validateDocument(doc));
    assert.deepEqual(paths(error), ['/sizes/1/hash']);
    assert.match(error.message, /size hash 'abc1234' is already used by sizes\[0\]/);
  });

  test('semanticProblems lists every problem, not only the first', () => {
    const doc = validateDocument(withElements([element('a'), element('b')]));
    doc.sizes[0].slides[0].elements.push(structuredClone(doc.sizes[0].slides[0].elements[0]));
    doc.sizes[0].slides[0].elements.push(structuredClone(doc.sizes[0].slides[0].elements[1]));
    assert.deepEqual(
      semanticProblems(doc).map((p) => p.path),
      ['/sizes/0/slides/0/elements/2/name', '/sizes/0/slides/0/elements/3/name'],
    );
  });
});

describe('normaliseDocument', () => {
  const HASH = /^[a-z0-9]{7}$/;

  test('fills size hashes and kinds and stamps the version, without touching its input', () => {
    const doc = springSale();
    const custom = { ...structuredClone(doc.sizes[0]), name: 'Odd', width: 301 };
    doc.sizes.push(custom);
    const valid = validateDocument(doc);
    const before = structuredClone(valid);
    const normal = normaliseDocument(valid);
    assert.deepEqual(valid, before);
    assert.match(normal.sizes[0].hash ?? '', HASH);
    assert.match(normal.sizes[1].hash ?? '', HASH);
    assert.notEqual(normal.sizes[0].hash, normal.sizes[1].hash);
    assert.deepEqual(
      normal.sizes.map((s) => s.kind),
      ['system_design', 'custom_design'],
    );
    assert.equal(normal.version, CURRENT_DOCUMENT_VERSION);
    assert.deepEqual(normal.sizes[0].slides, valid.sizes[0].slides);
  });

  test('keeps the hashes it is given and derives kind even when the client claims another', () => {
    const doc = springSale();
    doc.sizes[0].hash = 'keep123';
    doc.sizes[0].kind = 'custom_design';
    const normal = normaliseDocument(validateDocument(doc));
    assert.equal(normal.sizes[0].hash, 'keep123');
    assert.equal(normal.sizes[0].kind, 'system_design');
  });

  test('reuses the existing document’s hash for the same size (name and dimensions), new ones otherwise', () => {
    const existing: DesignDocument = normaliseDocument(validateDocument(springSale()));
    const next = springSale();
    next.sizes.push({ ...structuredClone(next.sizes[0]), name: 'Leaderboard', width: 728, height: 90 });
    const normal = normaliseDocument(validateDocument(next), existing);
    assert.equal(normal.sizes[0].hash, existing.sizes[0].hash);
    assert.match(normal.sizes[1].hash ?? '', HASH);
    assert.notEqual(normal.sizes[1].hash, existing.sizes[0].hash);
  });

  test('hashes are random', () => {
    const seen = new Set(
      Array.from({ length: 50 }, () => normaliseDocument(validateDocument(springSale())).sizes[0].hash),
    );
    assert.equal(seen.size, 50);
  });
});

describe('standard sizes', () => {
  test('the sizes SPEC names are system designs, others are custom', () => {
    for (const [w, h] of [
      [300, 250],
      [728, 90],
      [160, 600],
      [300, 600],
      [320, 50],
      [970, 250],
      [1080, 1080],
      [1080, 1920],
      [1200, 628],
      [1920, 1080],
    ]) {
      assert.equal(sizeKind(w, h), 'system_design', `${w}x${h}`);
    }
    assert.equal(sizeKind(250, 300), 'custom_design');
    assert.equal(standardSize(300, 250)?.name, 'Medium Rectangle');
  });

  test('the table has no duplicate dimensions', () => {
    const keys = STANDARD_SIZES.map((s) => `${s.width}x${s.height}`);
    assert.equal(new Set(keys).size, keys.length);
  });
});

describe('migrateDocument', () => {
  test('a document without a version is version 1', () => {
    const doc = migrateDocument(springSale()) as { version: number };
    assert.equal(doc.version, 1);
  });

  test('a newer version than the service reads is refused with a clear error', () => {
    const error = failure(() => migrateDocument({ ...springSale(), version: 2 }, { pointer: '/document' }));
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.deepEqual(paths(error), ['/document/version']);
    assert.match(
      error.message,
      /^document\.version: document version 2 is newer than this service reads \(up to 1\); upgrade Placard/,
    );
    const nonsense = failure(() => migrateDocument({ ...springSale(), version: 'one' }));
    assert.match(nonsense.message, /^version: must be a document version from 1 to 1, received "one"/);
  });

  test('runs each step from the stated version to the current one, in order, without touching its input', () => {
    const steps = {
      1: (doc: Record<string, unknown>) => ({ ...doc, renamed: doc.name, name: undefined }),
      2: (doc: Record<string, unknown>) => ({ ...doc, name: `${doc.renamed} (v3)`, renamed: undefined }),
    };
    const input = { version: 1, name: 'Old' };
    const out = migrateDocument(input, { current: 3, steps }) as Record<string, unknown>;
    assert.deepEqual(out, { version: 3, name: 'Old (v3)', renamed: undefined });
    assert.deepEqual(input, { version: 1, name: 'Old' });
    assert.throws(
      () => migrateDocument({ version: 1 }, { current: 2, steps: {} }),
      /no migration from design document version 1 to 2/,
    );
  });

  test('readDocument migrates, then validates', () => {
    assert.equal(readDocument(springSale()).version, 1);
    assert.throws(() => readDocument({ ...springSale(), version: 9 }), /newer than this service reads/);
    assert.throws(() => readDocument('not a document'), /must be a JSON object/);
  });
});

// Element changes (SPEC §5): every attribute's rule, every error code with its path and message, application to every
// size that has the element, request order, and no mutation of the input document.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyChanges,
  type ElementChangesInput,
  type FontLookup,
  nearestVariant,
  validateChanges,
} from '../../src/domain/changes.js';
import { type DesignDocument, validateDocument } from '../../src/domain/design.schema.js';
import { deepFreeze } from '../../src/domain/parsed-documents.js';
import type { Layer } from '../../src/elements/registry.js';
import { AppError } from '../../src/errors.js';
import { everyType } from './design-fixtures.js';

const weights = (list: number[], italic: boolean) => list.flatMap((w) => (italic ? [`${w}`, `${w}italic`] : [`${w}`]));

/** Two families shaped like the real ones: Inter has every weight and italic, Lato only 100/300/400/700/900. */
const FAMILIES: Record<string, string[]> = {
  Inter: weights([100, 200, 300, 400, 500, 600, 700, 800, 900], true),
  Lato: weights([100, 300, 400, 700, 900], true),
  'Bebas Neue': ['400'],
};
const fonts: FontLookup = {
  family(name) {
    const key = Object.keys(FAMILIES).find((family) => family.toLowerCase() === name.toLowerCase());
    return key ? { fontFamily: key, variants: FAMILIES[key] } : undefined;
  },
};

function design(): DesignDocument {
  return validateDocument(everyType());
}

/** Every element of that name, one per size that has it. */
function named(doc: DesignDocument, name: string): Layer[] {
  return doc.sizes.flatMap((size) => size.slides.flatMap((slide) => slide.elements.filter((e) => e.name === name)));
}

/** One field of the element of that name, per size that has it. */
function field(doc: DesignDocument, name: string, key: string): unknown[] {
  return named(doc, name).map((e) => (e as Record<string, unknown>)[key]);
}

function change(elementName: string, attribute: string, value: string): ElementChangesInput {
  return { elementName, changes: [{ attribute, value }] };
}

function apply(...entries: ElementChangesInput[]): DesignDocument {
  return applyChanges(design(), entries, undefined, fonts);
}

function failure(entries: ElementChangesInput[], general?: { backgroundColor?: string }): AppError {
  try {
    applyChanges(design(), entries, general, fonts);
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    // validateChanges refuses exactly what applyChanges refuses.
    assert.throws(
      () => validateChanges(design(), entries, general, fonts),
      (other: unknown) => other instanceof AppError && other.message === error.message,
    );
    return error;
  }
  assert.fail('expected an AppError');
}

/** The one INVALID_ELEMENT_CHANGE of a single change. */
function invalid(elementName: string, attribute: string, value: string): string {
  const error = failure([change(elementName, attribute, value)]);
  assert.equal(error.code, 'INVALID_ELEMENT_CHANGE');
  assert.equal(error.status, 422);
  assert.deepEqual(error.details?.length, 1);
  assert.equal(error.details?.[0].path, '/elementsChanges/0/changes/0/value');
  assert.equal(error.details?.[0].in, 'body');
  assert.equal(error.message, `elementsChanges[0].changes[0].value: ${error.details?.[0].message}`);
  return error.details?.[0].message ?? '';
}

describe('applying changes', () => {
  test('a change lands on the element in every size that has it, and on nothing else', () => {
    const doc = apply(change('headline', 'LABEL', 'Summer sale'));
    assert.deepEqual(
      named(doc, 'headline').map((e) => e.type === 'text' && e.text),
      ['Summer sale', 'Summer sale'],
    );
    assert.deepEqual(
      named(doc, 'badge').map((e) => e.type === 'text' && e.text),
      ['New'],
    );
    const badge = apply(change('badge', 'TEXTCOLOR', '#ABC'));
    assert.deepEqual(
      named(badge, 'badge').map((e) => e.type === 'text' && e.color),
      ['#ABC'],
    );
  });

  test('SOURCE: Google Drive, Dropbox and OneDrive share links become their direct-download links', () => {
    const cases: Array<[string, string]> = [
      [
        'https://drive.google.com/file/d/1AbCdEf/view?usp=sharing',
        'https://drive.google.com/uc?export=download&id=1AbCdEf',
      ],
      ['https://www.dropbox.com/s/abc123/photo.png?dl=0', 'https://www.dropbox.com/s/abc123/photo.png?dl=1'],
      ['https://cdn.example.com/summer.jpg', 'https://cdn.example.com/summer.jpg'],
    ];
    for (const [given, stored] of cases) {
      const sources = field(apply(change('photo', 'SOURCE', given)), 'photo', 'src');
      assert.ok(sources.length > 0);
      assert.deepEqual(
        sources,
        sources.map(() => stored),
        'in every size that has the element',
      );
    }
    const [oneDrive] = field(
      apply(change('photo', 'SOURCE', 'https://1drv.ms/i/s!AbCdEf')),
      'photo',
      'src',
    ) as string[];
    assert.match(oneDrive, /^https:\/\/api\.onedrive\.com\/v1\.0\/shares\/u!.+\/root\/content$/);
  });

  test('every attribute sets what it names', () => {
    const doc = apply(
      {
        elementName: 'headline',
        changes: [
          { attribute: 'TEXTMARKDOWN', value: '**Bold** and [a link](https://example.com)' },
          { attribute: 'TEXTCOLOR', value: '#FFFFFF' },
          { attribute: 'LINEHEIGHT', value: '1.5' },
          { attribute: 'LETTERSPACING', value: '-2.5' },
        ],
      },
      {
        elementName: 'cta',
        changes: [
          { attribute: 'LABEL', value: 'Shop\nnow' },
          { attribute: 'BGCOLOR', value: '#F59E0B' },
          { attribute: 'TEXTCOLOR', value: '#111' },
          { attribute: 'LETTERSPACING', value: '200' },
          { attribute: 'FONTVARIANT', value: '800italic' },
        ],
      },
      change('photo', 'SOURCE', 'https://cdn.example.com/summer.jpg'),
      change('clip', 'SOURCE', 'http://cdn.example.com/summer.mp4'),
      change('panel', 'BGCOLOR', '#000'),
      change('logo', 'SVGCOLORS', '["#111", "#222222"]'),
      change('embed', 'CODE', '<p>Hello <b>there</b></p>'),
      change('embed', 'VISIBILITY', 'false'),
    );
    const [headline] = named(doc, 'headline');
    assert.ok(headline.type === 'text');
    assert.deepEqual(
      [headline.text, headline.markdown, headline.color, headline.lineHeight, headline.letterSpacing],
      ['**Bold** and [a link](https://example.com)', true, '#FFFFFF', 1.5, -2.5],
    );
    const [cta] = named(doc, 'cta');
    assert.ok(cta.type === 'button');
    assert.deepEqual(
      [cta.label, cta.fill, cta.color, cta.letterSpacing, cta.fontVariant],
      ['Shop\nnow', '#F59E0B', '#111', 200, '800italic'],
    );
    assert.deepEqual(field(doc, 'photo', 'src'), [
      'https://cdn.example.com/summer.jpg',
      'https://cdn.example.com/summer.jpg',
    ]);
    assert.deepEqual(field(doc, 'clip', 'src'), [
      'http://cdn.example.com/summer.mp4',
      'http://cdn.example.com/summer.mp4',
    ]);
    assert.deepEqual(field(doc, 'panel', 'fill'), ['#000', '#000']);
    assert.deepEqual(field(doc, 'logo', 'colors'), [
      ['#111', '#222222'],
      ['#111', '#222222'],
    ]);
    const [embed] = named(doc, 'embed');
    assert.deepEqual([embed.type === 'code' && embed.html, embed.visible], ['<p>Hello <b>there</b></p>', false]);
  });

  test('LABEL on a markdown text makes it plain again', () => {
    const doc = apply({
      elementName: 'headline',
      changes: [
        { attribute: 'TEXTMARKDOWN', value: '*a*' },
        { attribute: 'LABEL', value: '*a*' },
      ],
    });
    assert.deepEqual(
      named(doc, 'headline').map((e) => e.type === 'text' && e.markdown),
      [false, false],
    );
  });

  test('changes run in request order: the last one wins, and a variant is checked against the new family', () => {
    const doc = apply(change('headline', 'LABEL', 'first'), change('headline', 'LABEL', 'second'), {
      elementName: 'cta',
      changes: [
        { attribute: 'FONTFAMILY', value: 'Bebas Neue' },
        { attribute: 'FONTFAMILY', value: 'lato' },
        { attribute: 'FONTVARIANT', value: '300' },
      ],
    });
    assert.deepEqual(
      named(doc, 'headline').map((e) => e.type === 'text' && e.text),
      ['second', 'second'],
    );
    assert.deepEqual(
      named(doc, 'cta').map((e) => e.type === 'button' && [e.fontFamily, e.fontVariant]),
      [
        ['Lato', '300'],
        ['Lato', '300'],
      ],
    );
    // Inter has 500, but the element is in Lato by then, which does not.
    const error = failure([
      {
        elementName: 'cta',
        changes: [
          { attribute: 'FONTFAMILY', value: 'Lato' },
          { attribute: 'FONTVARIANT', value: '500' },
        ],
      },
    ]);
    assert.equal(error.code, 'FONT_VARIANT_UNAVAILABLE');
    assert.equal(error.details?.[0].path, '/elementsChanges/0/changes/1/value');
  });

  test('FONTFAMILY keeps the variant when the new family has it, else takes the nearest of the same style', () => {
    const doc = apply(change('cta', 'FONTFAMILY', 'Lato'));
    // cta is 600 in Inter; Lato has 400 and 700, and above 500 a browser looks heavier first: 700.
    assert.deepEqual(
      named(doc, 'cta').map((e) => e.type === 'button' && e.fontVariant),
      ['700', '700'],
    );
    const bold = apply(change('headline', 'FONTFAMILY', 'Lato'));
    assert.deepEqual(
      named(bold, 'headline').map((e) => e.type === 'text' && e.fontVariant),
      ['700', '700'],
    );
    assert.equal(nearestVariant('500', FAMILIES.Lato), '400');
    assert.equal(nearestVariant('200italic', FAMILIES.Lato), '100italic');
    assert.equal(nearestVariant('600', ['400', '800']), '800');
    assert.equal(nearestVariant('400', ['300', '600']), '300');
    assert.equal(nearestVariant('400', ['100', '500', '600']), '500');
    assert.equal(nearestVariant('700italic', FAMILIES['Bebas Neue']), '400');
  });

  test('FONTVARIANT takes the Google Fonts spellings regular, italic and bold', () => {
    const doc = apply(change('cta', 'FONTVARIANT', 'Italic'));
    assert.deepEqual(
      named(doc, 'cta').map((e) => e.type === 'button' && e.fontVariant),
      ['400italic', '400italic'],
    );
  });

  test('generalChanges.backgroundColor sets every size’s background', () => {
    const doc = applyChanges(design(), [], { backgroundColor: '#0F172A' }, fonts);
    assert.deepEqual(
      doc.sizes.map((s) => s.backgroundColor),
      ['#0F172A', '#0F172A'],
    );
    const error = failure([], { backgroundColor: 'navy' });
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.deepEqual(error.details, [
      {
        path: '/generalChanges/backgroundColor',
        in: 'body',
        message: 'must be a hex colour #RGB or #RRGGBB such as #FFF or #FFFFFF, received "navy"',
      },
    ]);
  });

  test('the input document is never mutated, whether the changes apply or fail', () => {
    const input = deepFreeze(design());
    const before = structuredClone(input);
    const out = applyChanges(
      input,
      [change('headline', 'LABEL', 'x'), change('panel', 'VISIBILITY', 'false')],
      { backgroundColor: '#000' },
      fonts,
    );
    assert.notEqual(out, input);
    assert.deepEqual(input, before);
    assert.throws(() =>
      applyChanges(input, [change('headline', 'LABEL', 'x'), change('nope', 'LABEL', 'y')], undefined, fonts),
    );
    validateChanges(input, [change('headline', 'LABEL', 'x')], { backgroundColor: '#000' }, fonts);
    assert.deepEqual(input, before);
  });

  test('no changes give an equal document', () => {
    const doc = design();
    assert.deepEqual(applyChanges(doc, [], undefined, fonts), doc);
    assert.deepEqual(applyChanges(doc, [], {}, fonts), doc);
  });
});

describe('value rules (422 INVALID_ELEMENT_CHANGE at elementsChanges[i].changes[j].value)', () => {
  test('LABEL and TEXTMARKDOWN: up to 10,000 characters, counted as characters, not UTF-16 units', () => {
    assert.ok(apply(change('headline', 'LABEL', '😀'.repeat(10_000))));
    assert.equal(
      invalid('headline', 'LABEL', 'a'.repeat(10_001)),
      'LABEL needs at most 10,000 characters, received 10,001 characters',
    );
    assert.equal(
      invalid('headline', 'TEXTMARKDOWN', 'a'.repeat(10_001)),
      'TEXTMARKDOWN needs at most 10,000 characters, received 10,001 characters',
    );
  });

  test('SOURCE: an http(s) URL', () => {
    for (const bad of [
      'ftp://cdn.example.com/p.jpg',
      'cdn.example.com/p.jpg',
      'https://',
      ' https://a.test/p.jpg',
      'data:image/png;base64,AAAA',
    ]) {
      assert.equal(
        invalid('photo', 'SOURCE', bad),
        `SOURCE needs a public http(s) URL of a media file (at most 2048 characters), received ${JSON.stringify(bad)}`,
      );
    }
    assert.match(
      invalid('photo', 'SOURCE', `https://a.test/${'x'.repeat(2048)}`),
      /^SOURCE needs .* received "https:\/\/a\.test\/x+\.\.\."$/,
    );
  });

  test('CODE: a well-formed fragment of at most 64 KiB', () => {
    assert.equal(
      invalid('embed', 'CODE', '<div><span>hi</div>'),
      'CODE needs a well-formed HTML fragment (every tag closed, in order): </div> at line 1 does not close <span> (opened at line 1)',
    );
    assert.equal(
      invalid('embed', 'CODE', '<div>hi'),
      'CODE needs a well-formed HTML fragment (every tag closed, in order): <div> opened at line 1 is never closed',
    );
    const big = `<p>${'é'.repeat(32_767)}</p>`;
    assert.equal(
      invalid('embed', 'CODE', big),
      `CODE needs at most 64 KiB (65536 bytes) of HTML, received ${Buffer.byteLength(big)} bytes`,
    );
    const fits = `<p>${'x'.repeat(65_536 - 7)}</p>`;
    assert.ok(apply(change('embed', 'CODE', fits)));
  });

  test('VISIBILITY: true or false', () => {
    assert.deepEqual(
      named(apply(change('logo', 'VISIBILITY', 'FALSE')), 'logo').map((e) => e.visible),
      [false, false],
    );
    assert.deepEqual(
      named(apply(change('logo', 'VISIBILITY', 'true')), 'logo').map((e) => e.visible),
      [true, true],
    );
    for (const bad of ['yes', '1', '']) {
      assert.equal(
        invalid('logo', 'VISIBILITY', bad),
        `VISIBILITY needs true or false, received ${JSON.stringify(bad)}`,
      );
    }
  });

  test('TEXTCOLOR and BGCOLOR: #RGB or #RRGGBB', () => {
    for (const bad of ['red', '#FFFF', 'FFFFFF', '#GGGGGG', 'rgb(0,0,0)']) {
      assert.equal(
        invalid('headline', 'TEXTCOLOR', bad),
        `TEXTCOLOR needs a hex colour #RGB or #RRGGBB such as #FFF or #FFFFFF, received ${JSON.stringify(bad)}`,
      );
    }
    assert.equal(
      invalid('cta', 'BGCOLOR', 'blue'),
      'BGCOLOR needs a hex colour #RGB or #RRGGBB such as #FFF or #FFFFFF, received "blue"',
    );
  });

  test('SVGCOLORS: a JSON array or a comma-separated list of hex colours', () => {
    const list = apply(change('logo', 'SVGCOLORS', '#111, #222222 ,#abc'));
    assert.deepEqual(field(list, 'logo', 'colors')[0], ['#111', '#222222', '#abc']);
    const rule =
      'SVGCOLORS needs a JSON array or a comma-separated list of 1 to 256 hex colours (#RGB or #RRGGBB), such as ["#FFF","#0F172A"] or #FFF,#0F172A';
    assert.equal(invalid('logo', 'SVGCOLORS', '#111, blue'), `${rule}: item 1 is "blue"`);
    assert.equal(invalid('logo', 'SVGCOLORS', '["#111", 3]'), `${rule}: item 1 is 3`);
    assert.equal(invalid('logo', 'SVGCOLORS', '["#111"'), `${rule}: the value starts with [ but is not valid JSON`);
    assert.equal(invalid('logo', 'SVGCOLORS', ''), `${rule}: the list is empty`);
    assert.equal(invalid('logo', 'SVGCOLORS', '[]'), `${rule}: the list is empty`);
    assert.equal(
      invalid('logo', 'SVGCOLORS', Array(257).fill('#FFF').join(',')),
      `${rule}: the list has 257 colours, at most 256`,
    );
  });

  test('LINEHEIGHT: a number from 0.5 to 5', () => {
    assert.ok(apply(change('headline', 'LINEHEIGHT', '0.5')));
    assert.ok(apply(change('headline', 'LINEHEIGHT', '5')));
    for (const bad of ['0.49', '5.01', 'tall', '1e0', '', 'NaN']) {
      assert.equal(
        invalid('headline', 'LINEHEIGHT', bad),
        `LINEHEIGHT needs a number from 0.5 to 5 (times the font size), received ${JSON.stringify(bad)}`,
      );
    }
  });

  test('LETTERSPACING: a number of px from -50 to 200', () => {
    assert.ok(apply(change('cta', 'LETTERSPACING', '-50')));
    for (const bad of ['-50.5', '201', '2px']) {
      assert.equal(
        invalid('cta', 'LETTERSPACING', bad),
        `LETTERSPACING needs a number of px from -50 to 200, received ${JSON.stringify(bad)}`,
      );
    }
  });

  test('FONTVARIANT: a weight with an optional italic', () => {
    assert.equal(
      invalid('cta', 'FONTVARIANT', 'heavy'),
      'FONTVARIANT needs a weight from 100 to 900 in steps of 100, optionally followed by italic (400, 700italic), received "heavy"',
    );
  });
});

describe('error codes', () => {
  test('UNKNOWN_ELEMENT names the path and lists the valid names', () => {
    const error = failure([change('headline', 'LABEL', 'ok'), change('headlne', 'LABEL', 'x')]);
    assert.equal(error.code, 'UNKNOWN_ELEMENT');
    assert.equal(error.status, 422);
    assert.deepEqual(error.details, [
      {
        path: '/elementsChanges/1/elementName',
        in: 'body',
        message:
          'no size of the design has an element named "headlne"; valid names: badge, clip, cta, embed, headline, logo, panel, photo',
      },
    ]);
    assert.equal(error.message, `elementsChanges[1].elementName: ${error.details?.[0].message}`);
  });

  test('ATTRIBUTE_NOT_APPLICABLE names the type and what it accepts', () => {
    const cases: [string, string, string][] = [
      ['photo', 'TEXTCOLOR', 'image element "photo" does not accept TEXTCOLOR; it accepts SOURCE, VISIBILITY'],
      ['panel', 'LABEL', 'shape element "panel" does not accept LABEL; it accepts BGCOLOR, VISIBILITY'],
      ['logo', 'BGCOLOR', 'svg element "logo" does not accept BGCOLOR; it accepts SVGCOLORS, VISIBILITY'],
      ['embed', 'SOURCE', 'code element "embed" does not accept SOURCE; it accepts CODE, VISIBILITY'],
      ['clip', 'CODE', 'video element "clip" does not accept CODE; it accepts SOURCE, VISIBILITY'],
      [
        'cta',
        'LINEHEIGHT',
        'button element "cta" does not accept LINEHEIGHT; it accepts LABEL, VISIBILITY, FONTVARIANT, FONTFAMILY, TEXTCOLOR, BGCOLOR, LETTERSPACING',
      ],
      [
        'headline',
        'BGCOLOR',
        'text element "headline" does not accept BGCOLOR; it accepts LABEL, TEXTMARKDOWN, VISIBILITY, FONTVARIANT, FONTFAMILY, TEXTCOLOR, LINEHEIGHT, LETTERSPACING',
      ],
    ];
    for (const [name, attribute, message] of cases) {
      const error = failure([
        {
          elementName: name,
          changes: [
            { attribute: 'VISIBILITY', value: 'true' },
            { attribute, value: '#FFF' },
          ],
        },
      ]);
      assert.equal(error.code, 'ATTRIBUTE_NOT_APPLICABLE');
      assert.deepEqual(error.details, [{ path: '/elementsChanges/0/changes/1/attribute', in: 'body', message }]);
    }
  });

  test('FONT_VARIANT_UNAVAILABLE names the element, the size and the variants its family has', () => {
    // headline is Inter in the first size (which has 500) and Lato in the second (which does not).
    const error = failure([change('headline', 'FONTVARIANT', '500')]);
    assert.equal(error.code, 'FONT_VARIANT_UNAVAILABLE');
    assert.equal(error.status, 422);
    assert.deepEqual(error.details, [
      {
        path: '/elementsChanges/0/changes/0/value',
        in: 'body',
        message:
          'FONTVARIANT "500" is not available for element "headline" in size \'Leaderboard\' 728x90 (sizes[1]): Lato has 100, 100italic, 300, 300italic, 400, 400italic, 700, 700italic, 900, 900italic (GET /v1/templates/fontVariants)',
      },
    ]);
  });

  test('FONT_VARIANT_UNAVAILABLE for a family outside the catalogue, and for an element whose family is unknown', () => {
    const error = failure([change('cta', 'FONTFAMILY', 'Comic Sans MS')]);
    assert.equal(error.code, 'FONT_VARIANT_UNAVAILABLE');
    assert.deepEqual(error.details, [
      {
        path: '/elementsChanges/0/changes/0/value',
        in: 'body',
        message:
          'FONTFAMILY needs a family of the font catalogue (GET /v1/fonts) or of the project\'s brand kit, received "Comic Sans MS"',
      },
    ]);
    const doc = design();
    const [badge] = named(doc, 'badge');
    if (badge.type === 'text') badge.fontFamily = 'Brand Sans';
    assert.throws(
      () => applyChanges(doc, [change('badge', 'FONTVARIANT', '400')], undefined, fonts),
      /its family "Brand Sans" is not in the font catalogue/,
    );
  });

  test('every problem of the first problem’s code is reported, in request order', () => {
    const error = failure([
      change('headline', 'TEXTCOLOR', 'red'),
      change('nope', 'LABEL', 'x'),
      change('cta', 'BGCOLOR', 'blue'),
    ]);
    assert.equal(error.code, 'INVALID_ELEMENT_CHANGE');
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['/elementsChanges/0/changes/0/value', '/elementsChanges/2/changes/0/value'],
    );
    assert.match(
      error.message,
      /^elementsChanges\[0\]\.changes\[0\]\.value: TEXTCOLOR needs .*received "red" \(and 1 more problem\(s\), see details\)$/,
    );
  });

  test('an attribute outside the catalogue (normally stopped by the request schema) is a VALIDATION_FAILED', () => {
    const error = failure([change('headline', 'COLOR', '#FFF')]);
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.equal(error.details?.[0].path, '/elementsChanges/0/changes/0/attribute');
    assert.match(error.message, /must be one of LABEL, SOURCE, CODE/);
  });

  test('validateChanges accepts what applyChanges applies', () => {
    assert.equal(
      validateChanges(design(), [change('headline', 'LABEL', 'ok')], { backgroundColor: '#FFF' }, fonts),
      undefined,
    );
  });
});

// POST /v1/studio/canvas (issue 19): the editor's canvas is the HTML5 export's markup of one size, element by element,
// with its fonts and rasters inlined; bad input is a 400 naming the field; nothing is stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const doc = {
  name: 'Canvas',
  sizes: [
    {
      name: 'MREC',
      width: 300,
      height: 250,
      backgroundColor: '#102030',
      slides: [
        {
          elements: [
            { name: 'panel', type: 'shape', shape: 'rect', x: 0, y: 0, width: 300, height: 80, fill: '#FF0000' },
            {
              name: 'headline',
              type: 'text',
              x: 10,
              y: 100,
              width: 120,
              height: 100,
              text: 'A headline long enough to wrap over lines',
              fontFamily: 'Inter',
              fontVariant: '700',
              fontSize: 20,
            },
            { name: 'hidden', type: 'shape', shape: 'rect', x: 0, y: 0, width: 5, height: 5, visible: false },
            { name: 'cta', type: 'button', x: 150, y: 200, width: 120, height: 40, label: 'Buy <now>' },
          ],
        },
      ],
    },
  ],
};

describe('POST /v1/studio/canvas', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const post = (payload: unknown, headers = t.owner.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/studio/canvas', headers, payload: payload as object });

  test('answers the size as the HTML5 export draws it: named elements, text line by line, fonts inlined', async () => {
    const res = await post({ document: doc, sizeIndex: 0 });
    assert.equal(res.statusCode, 200, res.body);
    const canvas = res.json().response;
    assert.equal(canvas.width, 300);
    assert.equal(canvas.height, 250);
    assert.equal(canvas.backgroundColor, '#102030');
    const names = [...canvas.markup.matchAll(/data-element-name="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(names, ['panel', 'headline', 'hidden', 'cta'], 'elements in drawing order');
    assert.match(canvas.markup, /data-element-name="hidden" style="display:none;/, 'the editor shows it when asked');
    assert.match(canvas.markup, /data-element-name="headline" style="left:10px;top:100px;width:120px;height:100px/);
    // The server broke the headline into lines: more than one positioned run, none wider than the box by the browser.
    const headline = canvas.markup.slice(canvas.markup.indexOf('"headline"'), canvas.markup.indexOf('"cta"'));
    assert.ok((headline.match(/class="r"/g) ?? []).length >= 3, headline);
    assert.match(canvas.markup, /Buy &lt;now&gt;/);
    assert.match(canvas.fontCss, /@font-face\{[^}]*src:url\(data:font\/woff2;base64,[A-Za-z0-9+/]+=*\)/);
    assert.doesNotMatch(canvas.markup, /src="(?!data:)/, 'every file reference is inlined');
    // Faces are named by their content, and every face a run uses has its rule in the answer.
    assert.ok(canvas.faces.length >= 1);
    for (const face of canvas.faces) assert.match(canvas.fontCss, new RegExp(`font-family:${face};`));
    const used = new Set([...canvas.markup.matchAll(/font:[^;"]*px ([^;"]+)/g)].flatMap((m) => m[1].split(',')));
    assert.deepEqual([...used].sort(), [...canvas.faces].sort());
  });

  test('a change packages only the elements it touches; faces the caller has are left out', async () => {
    // A setting of the document every element is drawn with: none of them is in the cache yet.
    const own: typeof doc & { loop?: number } = { ...structuredClone(doc), loop: 2 };
    const first = await post({ document: own, sizeIndex: 0 });
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.headers['server-timing'] as string, /4 of 4 elements packaged/);
    const faces: string[] = first.json().response.faces;

    const again = await post({ document: own, sizeIndex: 0, knownFaces: faces });
    assert.equal(again.statusCode, 200, again.body);
    assert.match(again.headers['server-timing'] as string, /0 of 4 elements packaged/);
    assert.equal(again.json().response.markup, first.json().response.markup, 'the same drawing from the cache');
    assert.equal(again.json().response.fontCss, '');
    assert.deepEqual(again.json().response.faces, []);

    const elements = own.sizes[0].slides[0].elements as Array<Record<string, unknown>>;
    elements[1].text = 'Another headline, typed';
    elements[0].fill = '#00FF00';
    const changed = await post({ document: own, sizeIndex: 0, knownFaces: faces });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.match(changed.headers['server-timing'] as string, /2 of 4 elements packaged/);
    const markup: string = changed.json().response.markup;
    assert.match(markup, /typed/);
    assert.match(markup, /background:#00FF00/);
    // New letters make a new subset: its rule comes back; the button's unchanged face does not.
    const fresh: string[] = changed.json().response.faces;
    for (const face of fresh) assert.ok(!faces.includes(face), face);
    const used = new Set([...markup.matchAll(/font:[^;"]*px ([^;"]+)/g)].flatMap((m) => m[1].split(',')));
    for (const face of used) assert.ok(faces.includes(face) || fresh.includes(face), `${face} has a rule somewhere`);

    // Hiding and reordering are drawn from the cache.
    elements[2].visible = true;
    elements.reverse();
    const reordered = await post({ document: own, sizeIndex: 0, knownFaces: [...faces, ...fresh] });
    assert.match(reordered.headers['server-timing'] as string, /0 of 4 elements packaged/);
    const names = [...reordered.json().response.markup.matchAll(/data-element-name="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(names, ['cta', 'hidden', 'headline', 'panel']);
    assert.doesNotMatch(reordered.json().response.markup, /display:none/);
  });

  test('knownFaces must be face names', async () => {
    const res = await post({ document: doc, sizeIndex: 0, knownFaces: ['Inter'] });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /\/knownFaces\/0/);
  });

  test("carries the export's motion: keyframes named by their rule in the markup's styles, text left as typed", async () => {
    const slide = (n: number, text: string) => ({
      duration: 2,
      elements: [
        {
          name: `headline${n}`,
          type: 'text',
          x: 10,
          y: 10,
          width: 200,
          height: 60,
          text,
          fontSize: 12,
          animations: [{ effect: 'fade', start: 0.5, duration: 1, easing: 'linear' }],
        },
        { name: `still${n}`, type: 'shape', shape: 'rect', x: 0, y: 100, width: 20, height: 20 },
      ],
    });
    const tricky = 'animation:m1 1s; @keyframes m1{0%{opacity:0}}';
    const animated = {
      name: 'Motion',
      sizes: [0, 1].map((i) => ({
        name: `S${i}`,
        width: 300,
        height: 250,
        slides: [slide(1, tricky), slide(2, 'Second slide')],
      })),
    };
    const res = await post({ document: animated, sizeIndex: 1 });
    assert.equal(res.statusCode, 200, res.body);
    const { motionCss, markup } = res.json().response;
    const names = [...motionCss.matchAll(/@keyframes ([\w-]+)\{/g)].map((m) => m[1]);
    // One per animated element (one per slide here) and one per slide's visibility; the still shape has none. Named
    // by a hash of the rule: the export's m1/s0 repeat in every package, and drawings of many share the editor's page.
    assert.equal(new Set(names).size, 4, motionCss);
    for (const name of names) {
      assert.match(name, /^pk[0-9a-f]{16}$/);
      assert.match(markup, new RegExp(`animation:${name} 4s `));
    }
    const styles = (markup.match(/ style="[^"]*"/g) ?? []).join(' ');
    assert.doesNotMatch(styles, /animation:[ms]\d/, 'every animation name is renamed');
    assert.match(markup, />animation:m1 1s; @keyframes</, 'the text as typed');
    // Fade in linearly over 0.5..1.5 s of a 4 s play: 0 at 12.5%, 1 at 37.5%.
    const fade = /data-element-name="headline1" style="[^"]*animation:(pk[0-9a-f]{16}) /.exec(markup)?.[1];
    assert.ok(fade, markup);
    assert.match(
      motionCss,
      new RegExp(
        `@keyframes ${fade}\\{0%\\{[^}]*opacity:0[;}].*12\\.5%\\{[^}]*opacity:0[;}].*37\\.5%\\{[^}]*opacity:1[;}]`,
      ),
    );
    assert.ok(!motionCss.includes('opacity:0}}'), 'the text that reads like a rule is not one');
    // Asked again, every element and the slides come from the cache: the motion comes with them.
    const again = await post({ document: animated, sizeIndex: 1 });
    assert.match(again.headers['server-timing'] as string, /0 of 4 elements packaged/);
    assert.deepEqual(again.json().response.motionCss.split('\n').sort(), motionCss.split('\n').sort());
    assert.equal(again.json().response.markup, markup);
  });

  test('a size index beyond the document and a broken document are 400s naming the field', async () => {
    const far = await post({ document: doc, sizeIndex: 3 });
    assert.equal(far.statusCode, 400, far.body);
    assert.equal(far.json().code, 'VALIDATION_FAILED');
    assert.match(far.body, /\/sizeIndex/);
    const broken = await post({ document: { name: 'x', sizes: [{ name: 'a' }] }, sizeIndex: 0 });
    assert.equal(broken.statusCode, 400, broken.body);
    assert.match(broken.body, /\/document\/sizes\/0/);
  });

  test('needs a signed-in caller', async () => {
    const res = await post({ document: doc, sizeIndex: 0 }, {} as never);
    assert.equal(res.statusCode, 401);
  });
});

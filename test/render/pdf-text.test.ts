// Searchable PDFs in every script: each text run of a PDF export sits in a marked-content span whose ActualText is the
// text the user typed, so ligatures ("floor" in Lato), Arabic joins, Devanagari conjuncts and Thai marks copy as typed.
// The content streams are read here with node:zlib (Skia writes classic Flate streams); pdf.js (test/helpers/pdf.ts,
// ActualText honoured as readers do) checks that a reader returns the copy exactly (whitespace and bidi controls aside).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { readDocument } from '../../src/domain/design.schema.js';
import { renderPdf } from '../../src/formats/pdf/pdf.js';
import { firstStrong } from '../../src/render/text/bidi.js';
import { graphemesOf } from '../../src/render/text/line-break.js';
import { pdfText } from '../helpers/pdf.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-pdf-text-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A line of real copy per script; Lato has the fi/fl ligatures that used to lose their letters. */
const COPY: Array<{ script: string; text: string; fontFamily: string }> = [
  { script: 'Latin ligatures', text: 'The floor flavour office: find it first', fontFamily: 'Lato' },
  { script: 'Arabic', text: 'تسوق الآن واحصل على خصم كبير', fontFamily: 'Inter' },
  { script: 'Hebrew', text: 'שלום! מבצע חורף בכל החנויות', fontFamily: 'Inter' },
  { script: 'Devanagari', text: 'नमस्ते दुनिया, क्षत्रिय स्वागत है', fontFamily: 'Inter' },
  { script: 'Thai', text: 'สวัสดีครับ ยินดีต้อนรับสู่ร้านค้า', fontFamily: 'Inter' },
  { script: 'Japanese', text: '東京の春セール、全品半額です。', fontFamily: 'Inter' },
  { script: 'Chinese', text: '春季大促销，全场五折', fontFamily: 'Inter' },
  { script: 'Korean', text: '서울 봄 세일 지금 시작', fontFamily: 'Inter' },
  { script: 'emoji', text: 'Party time 🎉👍🏽 sale', fontFamily: 'Inter' },
  // Mixed directions: a Latin brand name, Arabic-Indic digits and final punctuation in an Arabic sentence.
  { script: 'Arabic mixed', text: 'تسوق الآن واحصل على خصم ٥٠٪ من Placard!', fontFamily: 'Inter' },
];

async function pdfOf(text: string, fontFamily: string): Promise<Buffer> {
  const document = readDocument({
    name: 'copy',
    sizes: [
      {
        name: 'Banner',
        width: 320,
        height: 200,
        slides: [
          {
            elements: [
              { name: 'copy', type: 'text', x: 10, y: 10, width: 300, height: 180, text, fontFamily, fontSize: 20 },
            ],
          },
        ],
      },
    ],
  });
  return renderPdf(document, 0);
}

/** The decoded content streams of a PDF (every Flate stream that is not a font, image or ICC profile). */
function contentStreams(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const streams: string[] = [];
  // The dictionary may not run past its object's end (a dictionary without a stream would swallow the next object).
  for (const match of raw.matchAll(/\d+ 0 obj\s*<<((?:(?!endobj)[\s\S])*?)>>\s*stream\r?\n/g)) {
    const dict = match[1]!;
    if (!/\/FlateDecode/.test(dict) || /\/(Subtype|Length1|Type|N |CIDToGIDMap)/.test(dict)) continue;
    const start = match.index + match[0].length;
    const length = Number(/\/Length (\d+)/.exec(dict)![1]);
    streams.push(zlib.inflateSync(pdf.subarray(start, start + length)).toString('latin1'));
  }
  return streams;
}

/** The ActualText of every span, in drawing order, decoded from UTF-16BE hex. */
function actualTexts(pdf: Buffer): string[] {
  return contentStreams(pdf).flatMap((stream) =>
    [...stream.matchAll(/\/Span <<\/ActualText <FEFF([0-9A-F]*)>>> BDC/g)].map((match) =>
      Buffer.from(match[1]!, 'hex').swap16().toString('utf16le'),
    ),
  );
}

const squash = (text: string) => text.replace(/[\s\u202A-\u202E]+/g, '');

describe('PDF text is the copy as typed', () => {
  for (const { script, text, fontFamily } of COPY) {
    test(`${script}: every run is an ActualText span, and together they hold exactly the copy`, async () => {
      const pdf = await pdfOf(text, fontFamily);
      const spans = actualTexts(pdf);
      assert.ok(spans.length > 0, 'the PDF has ActualText spans');
      // Right-to-left spans hold their graphemes in visual order (see text-paint.ts): turned back, every span is a
      // stretch of the copy, and the spans use up every character of it.
      const logical = spans.map((span) => (firstStrong(span) === 'rtl' ? graphemesOf(span).reverse().join('') : span));
      let rest = squash(text);
      for (const span of logical) {
        const part = squash(span);
        assert.ok(rest.includes(part), `span ${JSON.stringify(span)} is a stretch of ${JSON.stringify(text)}`);
        rest = rest.replace(part, '');
      }
      assert.equal(rest, '', 'no character of the copy is missing from the spans');
    });
  }

  for (const { script, text, fontFamily } of COPY.filter((copy) => copy.script !== 'Arabic mixed')) {
    test(`${script}: a reader (pdf.js, honouring ActualText) returns the copy exactly`, async () => {
      const [page] = await pdfText(await pdfOf(text, fontFamily));
      assert.equal(squash(page), squash(text));
    });
  }
});

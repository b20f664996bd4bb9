// Placard's text layout against Chromium's, per script: a line of real copy per script in headline, body and button
// roles, drawn by Placard (the text kind on a canvas) and by Chromium (a <div> with the same box, fonts, size, line
// height and alignment; `dir="auto"` as CSS's paragraph direction, which is also Placard's rule). Both use exactly
// Placard's font files: Chromium gets each registered alias as an @font-face, in the same order.
//
// Ink "differs beyond one pixel" where one render has ink and the other has none within one pixel; per line band that
// must stay under 5 % of the ink. Right-to-left alignment is checked on the ink's horizontal extent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { textKind } from '../../src/elements/text/index.js';
import type { TextElement } from '../../src/elements/text/schema.js';
import { fontFiles } from '../../src/render/text/fonts.js';
import { layoutWithFonts, textBoxOf } from '../../src/render/text/text-paint.js';
import { AD_ORIGIN, isPackagedChromium, launchBrowser, servePackage } from './browser.js';

const PAD = 20;
/** Line bands compared (the box is this many lines tall; the copy takes at most this many in every role). */
const LINES = 6;

interface Role {
  role: 'headline' | 'body' | 'button';
  fontVariant: string;
  fontSize: number;
  width: number;
  lineHeight: number;
}

const ROLES: Role[] = [
  { role: 'headline', fontVariant: '700', fontSize: 30, width: 420, lineHeight: 1.2 },
  { role: 'body', fontVariant: '400', fontSize: 16, width: 260, lineHeight: 1.4 },
  { role: 'button', fontVariant: '600', fontSize: 14, width: 160, lineHeight: 1.2 },
];

const COPY: Array<{ script: string; text: string; align: TextElement['align'] }> = [
  { script: 'Latin', text: 'Spring sale: fresh flavours, final offers', align: 'left' },
  { script: 'Arabic', text: 'تسوق الآن واحصل على خصم كبير', align: 'right' },
  { script: 'Hebrew', text: 'מבצע חורף בכל החנויות עכשיו', align: 'right' },
  { script: 'Devanagari', text: 'नमस्ते, आज ही खरीदें', align: 'left' },
  { script: 'Thai', text: 'ยินดีต้อนรับ ลดราคา', align: 'center' },
  { script: 'Japanese', text: '春のセール開催中', align: 'left' },
  {
    script: 'Japanese legal',
    text: '本キャンペーンは予告なく変更または終了する場合があります。詳しくは「利用規約」をご確認ください。',
    align: 'left',
  },
  {
    script: 'Arabic body',
    text: 'احصل على خصم يصل إلى خمسين بالمئة على جميع المنتجات المختارة، العرض ساري حتى نهاية الشهر فقط.',
    align: 'right',
  },
  {
    script: 'Hebrew body',
    text: 'הנחה של עד חמישים אחוז על כל המוצרים הנבחרים, המבצע בתוקף עד סוף החודש בלבד.',
    align: 'right',
  },
  { script: 'Arabic mixed', text: 'خصم ٥٠٪ على Placard Pro حتى نهاية الشهر!', align: 'right' },
  { script: 'Chinese', text: '春季大促销全场五折', align: 'left' },
  { script: 'Korean', text: '봄 세일 지금 시작', align: 'left' },
  { script: 'emoji', text: 'Party 🎉 time 🔥', align: 'center' },
  // UAX #14 cases (Chromium with CSS line-break: strict, the rule the issue asks for; its default lets a prolonged
  // sound mark or small kana start a line): Korean breaks between syllables inside a word (as Chromium's word-break: normal), small kana and
  // closing brackets never start a line, opening brackets never end one, hyphens, dashes and slashes may end one.
  {
    script: 'Korean body',
    text: '봄맞이 특별 할인 행사가 지금 시작됩니다. 모든 상품을 최대 오십 퍼센트까지 할인된 가격으로 만나보세요.',
    align: 'left',
  },
  {
    script: 'Japanese kinsoku',
    text: 'ちょっとお得なキャンペーン！「春のセール」は、ショッピングカートでご確認ください。（一部除外品あり）',
    align: 'left',
  },
  {
    script: 'Latin punctuation',
    text: 'Spring-sale offers—and/or free shipping (50% off) on orders over $25.',
    align: 'left',
  },
];

let browser: Browser | undefined;
let packaged = false;
before(async () => {
  browser = await launchBrowser();
  packaged = isPackagedChromium();
});
after(async () => {
  await browser?.close();
});

const element = (copy: (typeof COPY)[number], role: Role): TextElement => ({
  name: 'copy',
  type: 'text',
  x: 0,
  y: 0,
  width: role.width,
  height: Math.ceil(role.fontSize * role.lineHeight * LINES),
  text: copy.text,
  fontFamily: 'Inter',
  fontVariant: role.fontVariant,
  fontSize: role.fontSize,
  lineHeight: role.lineHeight,
  align: copy.align,
  color: '#000000',
});

/** Greyscale coverage (0 white … 255 black) of an RGBA buffer. */
function coverage(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = 255 - Math.min(rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!);
  return out;
}

function placard(el: TextElement, width: number, height: number): Uint8Array {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(PAD, PAD);
  textKind.draw!(el, { ctx, assets: { image: () => undefined }, time: Number.POSITIVE_INFINITY, output: 'raster' });
  return coverage(ctx.getImageData(0, 0, width, height).data, width, height);
}

/** The registered aliases of the layout's fonts, and their files (Chromium loads the same files under the same names). */
function fontsOf(el: TextElement): Array<{ alias: string; file: string }> {
  const layout = layoutWithFonts(
    textBoxOf(
      el,
      { text: el.text!, markdown: false, width: el.width, height: el.height },
      {
        align: 'start',
        verticalAlign: 'top',
        fontSize: 16,
      },
    ),
    { fontFamily: el.fontFamily!, fontVariant: el.fontVariant! },
  );
  const aliases = new Set<string>();
  for (const line of layout.lines) {
    for (const run of line.runs) for (const match of run.font.matchAll(/"([^"]+)"/g)) aliases.add(match[1]!);
  }
  return [...aliases].map((alias) => {
    const [family, variant, subset] = alias.split('|') as [string, string, string];
    const file = fontFiles(family, variant).find((f) => f.subset === subset)!.path;
    assert.ok(GlobalFonts.has(alias));
    return { alias, file };
  });
}

async function chromium(el: TextElement, width: number, height: number): Promise<Uint8Array> {
  const fonts = fontsOf(el);
  const files = new Map<string, Uint8Array>();
  const faces = fonts.map(({ alias, file }, i) => {
    files.set(`f${i}.woff2`, fs.readFileSync(file));
    // The face's own weight, as Skia registered it: Chromium would otherwise embolden a 400 face asked for at 600.
    const faceWeight = Number.parseInt(alias.split('|')[1]!, 10);
    return `@font-face { font-family: "${alias}"; font-weight: ${faceWeight}; src: url(f${i}.woff2) format("woff2"); }`;
  });
  const weight = Number.parseInt(el.fontVariant!, 10);
  const family = fonts.map(({ alias }) => `"${alias}"`).join(', ');
  const escaped = el.text!.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const html = `<!doctype html><meta charset="utf-8"><style>${faces.join('\n')}
    html, body { margin: 0; background: #fff; }
    div { position: absolute; left: ${PAD}px; top: ${PAD}px; width: ${el.width}px; height: ${el.height}px;
      font: ${weight} ${el.fontSize}px ${family}; line-height: ${el.lineHeight! * el.fontSize!}px;
      text-align: ${el.align}; color: #000; overflow-wrap: break-word; line-break: strict; }
  </style><div dir="auto">${escaped}</div>`;
  files.set('index.html', Buffer.from(html));
  const page = await browser!.newPage({ viewport: { width, height } });
  try {
    await servePackage(page, files);
    await page.goto(`${AD_ORIGIN}/index.html`);
    await page.evaluate('document.fonts.ready');
    const png = await page.screenshot({ type: 'png' });
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.equal(info.width, width);
    return coverage(data, width, height);
  } finally {
    await page.close();
  }
}

const INK = 96;

/** Share of ink pixels, in rows [top, bottom), with no ink in the other image within one pixel. */
function differingShare(a: Uint8Array, b: Uint8Array, width: number, top: number, bottom: number): number {
  const near = (img: Uint8Array, x: number, y: number) => {
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) if ((img[(y + dy) * width + x + dx] ?? 0) >= INK / 2) return true;
    }
    return false;
  };
  let ink = 0;
  let differing = 0;
  for (let y = Math.max(1, top); y < bottom - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      for (const [one, other] of [
        [a, b],
        [b, a],
      ] as const) {
        if (one[y * width + x]! < INK) continue;
        ink++;
        if (!near(other, x, y)) differing++;
      }
    }
  }
  return ink === 0 ? 0 : differing / ink;
}

function horizontalExtent(img: Uint8Array, width: number, top: number, bottom: number): [number, number] {
  let min = width;
  let max = -1;
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < width; x++) {
      if (img[y * width + x]! < INK) continue;
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
  }
  return [min, max];
}

describe('text against Chromium, per script and role', () => {
  for (const copy of COPY) {
    for (const role of ROLES) {
      test(`${copy.script} ${role.role}: ink within one pixel of Chromium's on every line`, async (t) => {
        try {
          await compare(copy, role);
        } catch (error) {
          // The npm package's build (147) breaks a few CJK lines differently and anti-aliases small Hebrew a little
          // differently from Debian's (156), the reference: with it a difference is reported as TODO, not a failure,
          // so that `npm test` passes on a machine with only Node; CI runs every case against Debian's.
          if (packaged && error instanceof assert.AssertionError) {
            t.todo(`differs in the npm Chromium ${browser!.version()} (checked against Debian's chromium in CI)`);
          }
          throw error;
        }
      });
    }
  }
});

async function compare(copy: (typeof COPY)[number], role: Role): Promise<void> {
  const el = element(copy, role);
  const width = el.width + 2 * PAD;
  const height = el.height + 2 * PAD;
  const ours = placard(el, width, height);
  const theirs = await chromium(el, width, height);
  const lineHeight = role.fontSize * role.lineHeight;
  for (let line = 0; line < LINES; line++) {
    const top = Math.floor(PAD + line * lineHeight);
    const bottom = Math.ceil(PAD + (line + 1) * lineHeight);
    const share = differingShare(ours, theirs, width, top, bottom);
    assert.ok(share < 0.05, `line ${line + 1}: ${(share * 100).toFixed(1)} % of the ink differs`);
    // The extent is read in the middle of the line box (descenders and marks of a neighbouring line reach in),
    // one pixel wider than the middle half: Chromium snaps baselines to whole pixels, Placard does not, so a
    // comma's tip can be one row inside the band in one render and outside it in the other.
    const core = [Math.round(top + lineHeight / 4) - 1, Math.round(bottom - lineHeight / 4) + 1] as const;
    const [ourLeft, ourRight] = horizontalExtent(ours, width, ...core);
    const [theirLeft, theirRight] = horizontalExtent(theirs, width, ...core);
    if (ourRight < 0 && theirRight < 0) continue;
    assert.ok(
      Math.abs(ourLeft - theirLeft) <= 2 && Math.abs(ourRight - theirRight) <= 2,
      `line ${line + 1}: ink ${ourLeft}..${ourRight}, Chromium ${theirLeft}..${theirRight}`,
    );
  }
}

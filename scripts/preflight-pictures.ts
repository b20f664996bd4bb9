// Renders the picture of each preflight finding for docs/preflight.md: the trigger fixture of
// test/formats/preflight/fixtures.ts, drawn by the export renderer at scale 1, with the box of the element the finding
// names outlined in red (a source that cannot be used leaves its box empty, as a thumbnail draws it).
// Run: npx tsx scripts/preflight-pictures.ts
import fs from 'node:fs';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { renderImage } from '../src/formats/pipeline.js';
import { FIXTURES, HTML5_WEIGHT_FIXTURE, startFixtureMedia } from '../test/formats/preflight/fixtures.js';

const OUT = path.resolve('docs/preflight');

const media = await startFixtureMedia();
try {
  fs.mkdirSync(OUT, { recursive: true });
  for (const [code, pair] of [...Object.entries(FIXTURES), ['HTML5_WEIGHT', HTML5_WEIGHT_FIXTURE] as const]) {
    const doc = media.document(pair.trigger);
    const png = await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher, skipRejectedSources: true });
    const image = await loadImage(png);
    const canvas = createCanvas(image.width, image.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const element = doc.sizes[0]!.slides[0]!.elements.find((e) => e.name === pair.element);
    if (element) {
      ctx.save();
      ctx.strokeStyle = '#EF4444';
      ctx.lineWidth = 2;
      ctx.setLineDash([6, 4]);
      const cx = element.x + element.width / 2;
      const cy = element.y + element.height / 2;
      ctx.translate(cx, cy);
      ctx.rotate(((element.rotation ?? 0) * Math.PI) / 180);
      ctx.strokeRect(-element.width / 2, -element.height / 2, element.width, element.height);
      ctx.restore();
    }
    // The weight picture is noise, which PNG cannot compress: a JPEG keeps the docs light.
    const jpeg = code === 'HTML5_WEIGHT';
    const file = path.join(OUT, `${code.toLowerCase().replaceAll('_', '-')}.${jpeg ? 'jpg' : 'png'}`);
    fs.writeFileSync(file, jpeg ? await canvas.encode('jpeg', 60) : await canvas.encode('png'));
    console.log(path.relative(process.cwd(), file));
  }
} finally {
  await media.close();
}

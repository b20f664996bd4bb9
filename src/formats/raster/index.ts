// PNG, JPG and WEBP (SPEC §6): one file per slide at `scale`; JPG and WEBP take `quality` (1..100, default 90) through
// the API as through `placard render`.
import { Type } from 'typebox';
import { defineFormat, QualitySetting, ScaleSetting } from '../output-format.js';
import { DEFAULT_JPG_QUALITY, encodeJpg } from './jpg.js';
import { encodePng } from './png.js';
import { checkScale, renderStill } from './raster.js';
import { DEFAULT_WEBP_QUALITY, encodeWebp } from './webp.js';

export const png = defineFormat({
  type: 'png',
  aliases: [],
  settings: Type.Object({ scale: Type.Optional(ScaleSetting('PNG')) }),
  defaults: (given) => ({ scale: given.scale ?? 1 }),
  files: 'perSlide',
  extension: 'png',
  contentType: 'image/png',
  budget: 'still',
  thumbnail: true,
  check: (size, settings) => checkScale(size, settings.scale),
  outputScale: (settings) => settings.scale,
  render: (job, context) => renderStill(job, context, encodePng),
});

export const jpg = defineFormat({
  type: 'jpg',
  aliases: ['jpeg'],
  settings: Type.Object({
    scale: Type.Optional(ScaleSetting('JPG')),
    quality: Type.Optional(QualitySetting(`JPG: 1..100, default ${DEFAULT_JPG_QUALITY}`)),
  }),
  defaults: (given) => ({ scale: given.scale ?? 1, quality: (given.quality as number) ?? DEFAULT_JPG_QUALITY }),
  files: 'perSlide',
  extension: 'jpg',
  contentType: 'image/jpeg',
  budget: 'still',
  thumbnail: true,
  check: (size, settings) => checkScale(size, settings.scale),
  outputScale: (settings) => settings.scale,
  render: (job, context) => renderStill(job, context, (canvas) => encodeJpg(canvas, job.settings.quality)),
});

export const webp = defineFormat({
  type: 'webp',
  aliases: [],
  settings: Type.Object({
    scale: Type.Optional(ScaleSetting('WEBP')),
    quality: Type.Optional(QualitySetting(`WEBP: 1..100, default ${DEFAULT_WEBP_QUALITY}`)),
  }),
  defaults: (given) => ({ scale: given.scale ?? 1, quality: (given.quality as number) ?? DEFAULT_WEBP_QUALITY }),
  files: 'perSlide',
  extension: 'webp',
  contentType: 'image/webp',
  budget: 'still',
  thumbnail: true,
  check: (size, settings) => checkScale(size, settings.scale),
  outputScale: (settings) => settings.scale,
  render: (job, context) => renderStill(job, context, (canvas) => encodeWebp(canvas, job.settings.quality)),
});

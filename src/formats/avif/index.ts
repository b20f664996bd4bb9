// AVIF (issue 13): a still raster format like WEBP, one file per slide at `scale`, `quality` 1..100.
import { Type } from 'typebox';
import { defineFormat, QualitySetting, ScaleSetting } from '../output-format.js';
import { checkScale, renderStill } from '../raster/raster.js';
import { DEFAULT_AVIF_QUALITY, encodeAvif } from './avif.js';

export const avif = defineFormat({
  type: 'avif',
  aliases: [],
  settings: Type.Object({
    scale: Type.Optional(ScaleSetting('AVIF')),
    quality: Type.Optional(QualitySetting(`AVIF: 1..100, default ${DEFAULT_AVIF_QUALITY}`)),
  }),
  defaults: (given) => ({ scale: given.scale ?? 1, quality: (given.quality as number) ?? DEFAULT_AVIF_QUALITY }),
  files: 'perSlide',
  extension: 'avif',
  contentType: 'image/avif',
  budget: 'still',
  thumbnail: true,
  check: (size, settings) => checkScale(size, settings.scale),
  outputScale: (settings) => settings.scale,
  render: (job, context) => renderStill(job, context, (canvas) => encodeAvif(canvas, job.settings.quality)),
});

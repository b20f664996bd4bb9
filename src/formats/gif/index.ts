// GIF (SPEC §6): one file per size playing its slides; `static` is one frame of the final state.
import { Type } from 'typebox';
import { animatedDurationProblem } from '../../domain/export-plan.js';
import { AppError } from '../../errors.js';
import { renderGif } from '../animated.js';
import { defineFormat } from '../output-format.js';

export const gif = defineFormat({
  type: 'gif',
  aliases: [],
  settings: Type.Object({
    gifPreset: Type.Optional(
      Type.Enum(['highQuality', 'optimized', 'static'], { description: 'GIF: default highQuality' }),
    ),
  }),
  defaults: (given) => ({ gifPreset: given.gifPreset ?? 'highQuality' }),
  files: 'perSize',
  extension: 'gif',
  contentType: 'image/gif',
  budget: 'video',
  // Its first frame is the start of the animation, not the final state.
  thumbnail: false,
  check(size, settings) {
    if (settings.gifPreset === 'static') return;
    const problem = animatedDurationProblem(size, 'gif');
    if (problem) throw new AppError('UNPROCESSABLE', problem);
  },
  async render(job, context) {
    return { bytes: await renderGif(job.document, job.sizeIndex, job.settings.gifPreset, context) };
  },
});

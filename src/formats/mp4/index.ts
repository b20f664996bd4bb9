// MP4 (SPEC §6): one H.264 file per size, written to disk by the render thread and streamed from there.
import { Type } from 'typebox';
import { animatedDurationProblem } from '../../domain/export-plan.js';
import { AppError } from '../../errors.js';
import { DEFAULT_MP4_FPS, renderMp4 } from '../animated.js';
import { defineFormat } from '../output-format.js';

export const mp4 = defineFormat({
  type: 'mp4',
  aliases: [],
  settings: Type.Object({
    targetFPS: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 60, description: `MP4: frame rate, default ${DEFAULT_MP4_FPS}` }),
    ),
  }),
  defaults: (given) => ({ targetFPS: given.targetFPS ?? DEFAULT_MP4_FPS }),
  files: 'perSize',
  extension: 'mp4',
  contentType: 'video/mp4',
  budget: 'video',
  thumbnail: false,
  writesFile: true,
  check(size) {
    const problem = animatedDurationProblem(size, 'mp4');
    if (problem) throw new AppError('UNPROCESSABLE', problem);
  },
  async render(job, context) {
    if (!job.out) throw new Error('an mp4 render needs the file to write (out)');
    await renderMp4(job.document, job.sizeIndex, job.out, { ...context, fps: job.settings.targetFPS });
    return { bytes: new Uint8Array(0) };
  },
});

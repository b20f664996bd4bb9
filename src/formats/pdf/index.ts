// PDF (SPEC §6): one file per size, a page per selected slide; PDF_PRINT adds bleed, crop marks and PDF/A metadata.
import { Type } from 'typebox';
import { defineFormat } from '../output-format.js';
import { PDF_PRESETS, renderPdf, selectSlides } from './pdf.js';

export const pdf = defineFormat({
  type: 'pdf',
  aliases: [],
  settings: Type.Object({
    pdfPreset: Type.Optional(Type.Enum([...PDF_PRESETS], { description: 'PDF: default PDF_STANDARD' })),
    slide: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0 }), {
        maxItems: 50,
        description: 'PDF: slides to export, counting from 0; default every slide',
      }),
    ),
  }),
  defaults: (given) => ({
    pdfPreset: given.pdfPreset ?? 'PDF_STANDARD',
    slide: [...new Set(given.slide ?? [])].sort((a, b) => a - b),
  }),
  files: 'perSize',
  extension: 'pdf',
  contentType: 'application/pdf',
  budget: 'still',
  embedsFonts: 'a PDF',
  thumbnail: false,
  check(size, settings) {
    if (settings.slide.length) selectSlides({ ...size, slideCount: size.slides.length }, settings.slide);
  },
  async render(job, context) {
    const bytes = await renderPdf(job.document, job.sizeIndex, {
      preset: job.settings.pdfPreset,
      slides: job.settings.slide.length ? job.settings.slide : undefined,
      fetcher: context.fetcher,
    });
    return { bytes };
  },
});

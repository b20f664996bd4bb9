// HTML5 (SPEC §6, issue 7): one zip per size, packaged for an ad network's rules.
import { defineFormat } from '../output-format.js';
import { packageHtml5 } from './package.js';
import { html5WeightFindings, weightFindings } from './preflight.js';
import { Html5SettingsSchema, resolveHtml5Settings } from './settings.js';

const HTML_DEFAULTS = {
  quality: 80,
  networkId: 1,
  retina: false,
  retinaOnly: false,
  // null: the network decides (Google Ads and TTD take no font files, so their text becomes SVG).
  convertCustomFonts: null,
  minifyHtml: false,
  urlTarget: '_blank',
  useAsClickTag: false,
  clickTagUrl: null,
  includeFallbackImage: false,
} as const;

export const html = defineFormat({
  type: 'html',
  aliases: ['html5'],
  settings: Html5SettingsSchema,
  defaults: (given) => {
    const out: Record<string, unknown> = {};
    for (const [key, fallback] of Object.entries(HTML_DEFAULTS)) {
      out[key] = (given as Record<string, unknown>)[key] ?? fallback;
    }
    return out as {
      -readonly [K in keyof typeof HTML_DEFAULTS]: (typeof HTML_DEFAULTS)[K] | NonNullable<(typeof given)[K]>;
    };
  },
  files: 'perSize',
  extension: 'zip',
  contentType: 'application/zip',
  budget: 'still',
  // Both ways a package carries text embed the font: a web font, or (convertCustomFonts) SVG text with a data: URL.
  embedsFonts: 'an HTML5 package',
  thumbnail: false,
  check(_size, settings) {
    resolveHtml5Settings(settings); // 400 before anything is created
  },
  async render(job, context) {
    const pkg = await packageHtml5(job.document, job.sizeIndex, job.settings, {
      zipName: job.fileStem,
      fetcher: context.fetcher,
    });
    const findings =
      job.preflight && job.preflight.mode !== 'off'
        ? weightFindings(
            pkg,
            job.document.sizes[job.sizeIndex]!,
            { sizeHash: job.preflight.sizeHash, sizeName: job.document.sizes[job.sizeIndex]!.name },
            job.settings,
          )
        : undefined;
    return { bytes: pkg.zip, warnings: pkg.warnings, backup: pkg.backup, findings };
  },
  preflight: (document, sizeIndex, about, settings, fetcher) =>
    html5WeightFindings(document, sizeIndex, about, settings, fetcher),
});

// `placard render` (SPEC §12): renders a design document file locally, without a server, with the export engine and
// the API's own validation, so that a designer checking a template and CI making golden images see exactly what an
// export would make, and invalid input fails with the code and message the API would answer (exit status 2).

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ValidateFunction } from 'ajv';
import type { TObject } from 'typebox';
import { applyChanges } from '../domain/changes.js';
import { type DesignDocument, readDocument } from '../domain/design.schema.js';
import { type PlannedFile, planFiles } from '../domain/export-plan.js';
import { describeValidation, pointerToPath } from '../domain/json-pointer.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import type { GifPreset } from '../formats/gif/gif.js';
import type { OutputFormat } from '../formats/output-format.js';
import { PDF_PRESETS, type PdfPreset } from '../formats/pdf/pdf.js';
import { EXPORT_TYPES, findFormat, type RenderJob, renderJob } from '../formats/registry.js';
import { type AssetFetcher, createAssetFetcher } from '../render/media/assets.js';
import { useBrandFamilies as registerBrandFamilies, requireEmbeddable } from '../render/text/brand-fonts.js';
import { type LocalFonts, loadLocalFonts } from './local-fonts.js';
import * as settingsValidators from './settings.validate.generated.js';

export const RENDER_USAGE = `usage: placard render <document.json> --format png|jpg|webp|avif|pdf|gif|mp4|html --out <path>
                      [--changes <file>] [--size <size hash or WxH>]... [--scale N] [--quality N] [--fps N]
                      [--pdf-preset PDF_STANDARD|PDF_PRINT] [--slide N]... [--gif-preset P] [--font <file>]...

  --format      png, jpg (jpeg), webp, avif, pdf, gif, mp4, html (html5: one zip per size)
  --out         the file to write; a directory when the render makes several files (several sizes, or a raster
                format and several slides), which are then named as exports name them: <design>-<W>x<H>[-<slide>].<ext>
  --changes     a JSON file { "elementsChanges": [...], "generalChanges": {...} } as POST /v1/export-with-changes takes
  --size        a size hash of the document or WxH; repeat for several; default every size
  --scale       output pixels per design pixel (png, jpg, webp, avif), greater than 0 and at most 16; default 1
  --quality     1 to 100: jpg and webp default 90, avif default 50, html images default 80
  --network     html: ad network id whose packaging rules apply (GET /v1/adnetworks/forHtml); default 1, IAB
  --fps         1 to 60 (mp4); default 30
  --gif-preset  highQuality (default), optimized or static (gif)
  --pdf-preset  PDF_STANDARD (default) or PDF_PRINT (3 mm bleed, crop marks, PDF/A-2b metadata)
  --slide       a slide to put in the PDF, counting from 0; repeat for several; default every slide
  --font        a font file (TTF, OTF, WOFF, WOFF2, TTC; a variable font gives one variant per named instance) drawn
                where the document or a FONTFAMILY change names its family, as an uploaded brand font; repeat for several

Invalid input exits with status 2 and prints the API's error code and message.`;

/** Bad usage of the command itself (flags, files), as opposed to invalid input, an AppError with the API's code. */
class UsageError extends Error {
  constructor(
    message: string,
    /** Whether printing the usage text helps (a wrong flag) or is noise (a file that cannot be read). */
    readonly showUsage = true,
  ) {
    super(message);
  }
}

export interface RenderCommandOptions {
  /** PLACARD_ALLOW_PRIVATE_URLS: let media URLs reach private addresses (a local asset server). Default false. */
  allowPrivateUrls?: boolean;
  /** PLACARD_ALLOWED_PRIVATE_HOSTS. */
  allowedPrivateHosts?: readonly string[];
  /** Fetches media; default: one built from `allowPrivateUrls`. */
  fetcher?: AssetFetcher;
  /** FFMPEG_PATH: the ffmpeg of gif/mp4 renders; default the bundled one. */
  ffmpegPath?: string | null;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

interface Args {
  document: string;
  format: OutputFormat<string, never, unknown>;
  out: string;
  changes?: string;
  sizes: string[];
  scale: number;
  quality?: number;
  preset: PdfPreset;
  slides?: number[];
  fps?: number;
  gifPreset: GifPreset;
  network?: number;
  fonts: string[];
}

const GIF_PRESETS: readonly GifPreset[] = ['highQuality', 'optimized', 'static'];

function numberFlag(
  name: string,
  value: string | undefined,
  rule: { integer: boolean; min: number; max: number; exclusiveMin?: boolean },
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const { integer, min, max, exclusiveMin } = rule;
  const ok =
    value.trim() !== '' &&
    Number.isFinite(n) &&
    (!integer || Number.isInteger(n)) &&
    (exclusiveMin ? n > min : n >= min) &&
    n <= max;
  if (!ok) {
    const what = integer ? `an integer from ${min} to ${max}` : `a number greater than ${min} and at most ${max}`;
    throw new UsageError(`--${name} must be ${what}, received '${value}'`);
  }
  return n;
}

function parse(argv: string[]): Args {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: 'string' },
      out: { type: 'string' },
      changes: { type: 'string' },
      size: { type: 'string', multiple: true },
      scale: { type: 'string' },
      quality: { type: 'string' },
      fps: { type: 'string' },
      network: { type: 'string' },
      'pdf-preset': { type: 'string' },
      'gif-preset': { type: 'string' },
      slide: { type: 'string', multiple: true },
      font: { type: 'string', multiple: true },
    },
  });
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length ? `one document at a time, received ${positionals.length}` : 'the document file is missing',
    );
  }
  if (!values.format) throw new UsageError('--format is missing');
  const format = findFormat(values.format);
  if (!format) {
    throw new UsageError(`--format must be one of ${EXPORT_TYPES.join(', ')}, received '${values.format}'`);
  }
  if (!values.out) throw new UsageError('--out is missing');
  const preset = (values['pdf-preset'] ?? 'PDF_STANDARD').toUpperCase();
  if (!(PDF_PRESETS as readonly string[]).includes(preset)) {
    throw new UsageError(`--pdf-preset must be one of ${PDF_PRESETS.join(', ')}, received '${values['pdf-preset']}'`);
  }
  const gifPreset = GIF_PRESETS.find((p) => p.toLowerCase() === (values['gif-preset'] ?? 'highQuality').toLowerCase());
  if (!gifPreset) {
    throw new UsageError(`--gif-preset must be one of ${GIF_PRESETS.join(', ')}, received '${values['gif-preset']}'`);
  }
  return {
    document: positionals[0],
    format,
    out: values.out,
    changes: values.changes,
    sizes: values.size ?? [],
    scale: numberFlag('scale', values.scale, { integer: false, min: 0, max: 16, exclusiveMin: true }) ?? 1,
    quality: numberFlag('quality', values.quality, { integer: true, min: 1, max: 100 }),
    preset: preset as PdfPreset,
    fps: numberFlag('fps', values.fps, { integer: true, min: 1, max: 60 }),
    network: numberFlag('network', values.network, { integer: true, min: 1, max: 1_000_000 }),
    gifPreset,
    fonts: values.font ?? [],
    slides: values.slide?.map(
      (slide) => numberFlag('slide', slide, { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER })!,
    ),
  };
}

/** A JSON file, or INVALID_JSON naming it (the API answers a body that is not JSON the same way). */
function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${what} ${file}: ${(error as Error).message}`, false);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('INVALID_JSON', `${file}: the ${what} is not valid JSON: ${(error as Error).message}`);
  }
}

async function withChanges(document: DesignDocument, file: string, fonts: FontLookup): Promise<DesignDocument> {
  const raw = readJson(file, 'changes file');
  // Imported on first use: the changes schema holds every element's changes (~100 ms of a cold start), and most
  // renders have no --changes (issue 21).
  const { checkChangesFile } = await import('./changes-file.js');
  if (!checkChangesFile(raw)) {
    const { message, details } = describeValidation(checkChangesFile.errors ?? [], 'body');
    throw new AppError('VALIDATION_FAILED', message, { details });
  }
  return applyChanges(document, raw.elementsChanges, raw.generalChanges, fonts);
}

/** The sizes `--size` names (a size hash of the document, or WxH), in document order; every size when none. */
export function selectSizes(document: DesignDocument, wanted: readonly string[]): number[] {
  const all = document.sizes.map((_, i) => i);
  if (!wanted.length) return all;
  const chosen = new Set<number>();
  for (const value of wanted) {
    const byHash = all.filter((s) => document.sizes[s].hash === value);
    const dimensions = /^(\d+)x(\d+)$/i.exec(value.trim());
    const byDimensions = dimensions
      ? all.filter(
          (s) =>
            `${document.sizes[s].width}x${document.sizes[s].height}` ===
            `${Number(dimensions[1])}x${Number(dimensions[2])}`,
        )
      : [];
    const found = byHash.length ? byHash : byDimensions;
    if (!found.length) {
      const sizes = document.sizes
        .map((size) => `${size.width}x${size.height}${size.hash ? ` (${size.hash})` : ''}`)
        .join(', ');
      const message = `'${value}' is neither a size hash nor the WxH of a size of the design; its sizes: ${sizes}`;
      throw new AppError('UNKNOWN_SIZE_HASH', `--size: ${message}`);
    }
    for (const s of found) chosen.add(s);
  }
  return all.filter((s) => chosen.has(s));
}

/** Where each file goes: `--out` itself for a single file (unless it is a directory), else files inside it. */
function targets(out: string, files: PlannedFile[]): string[] {
  const isDirectory = fs.existsSync(out) && fs.statSync(out).isDirectory();
  if (files.length === 1 && !isDirectory) return [out];
  if (fs.existsSync(out) && !isDirectory) {
    throw new UsageError(
      `this render makes ${files.length} files (${files.map((file) => file.name).join(', ')}); --out ${out} is a file, give a directory`,
      false,
    );
  }
  return files.map((file) => path.join(out, file.name));
}

/** The flags as the exportSettings of an API request, limited to those the format reads (the API ignores the rest). */
function settingsOf(args: Args): Record<string, unknown> {
  const given: Record<string, unknown> = {
    scale: args.scale,
    quality: args.quality,
    targetFPS: args.fps,
    gifPreset: args.gifPreset,
    pdfPreset: args.preset,
    slide: args.slides,
    networkId: args.network,
  };
  const own = Object.keys((args.format.settings as TObject).properties);
  return Object.fromEntries(Object.entries(given).filter(([key, value]) => value !== undefined && own.includes(key)));
}

/**
 * The API's checks of exportSettings, with the API's messages: the format's own schema under the API's Ajv settings,
 * compiled ahead of time (scripts/compile-validators.ts) so that a render compiles nothing at start (issue 21).
 */
function validateSettings(format: OutputFormat<string, never, unknown>, given: Record<string, unknown>): void {
  const validate = (settingsValidators as unknown as Record<string, ValidateFunction | undefined>)[format.type];
  if (!validate) throw new Error(`no compiled settings validator for ${format.type}: run npm run schema:compile`);
  if (!validate({ exportSettings: given })) {
    const { message, details } = describeValidation(validate.errors ?? [], 'body');
    throw new AppError('VALIDATION_FAILED', message, { details });
  }
}

async function render(args: Args, options: RenderCommandOptions, print: (text: string) => void): Promise<void> {
  const local = await loadLocalFonts(args.fonts);
  try {
    await renderWith(args, options, print, local);
  } finally {
    local.close();
  }
}

async function renderWith(
  args: Args,
  options: RenderCommandOptions,
  print: (text: string) => void,
  local: LocalFonts,
): Promise<void> {
  const format = args.format;
  const given = settingsOf(args);
  validateSettings(format, given);
  const settings = format.defaults(given as never);
  let document = readDocument(readJson(args.document, 'document'));
  if (args.changes) document = await withChanges(document, args.changes, local.lookup);
  // After the changes: a FONTFAMILY change names a local family as the person knows it.
  document = local.rewrite(document);
  registerBrandFamilies(local.families);
  if (format.embedsFonts) requireEmbeddable(local.families, format.embedsFonts);
  const sizes = selectSizes(document, args.sizes);
  // The API's checks, for every size before anything is written: a scale too large for one size fails the render.
  for (const s of sizes) format.check(document.sizes[s], settings as never);
  const jobs = planFiles(document, document.name, sizes, format);
  const files = targets(args.out, jobs);
  const fetcher =
    options.fetcher ??
    createAssetFetcher({
      allowPrivateUrls: options.allowPrivateUrls ?? false,
      allowedPrivateHosts: options.allowedPrivateHosts ?? [],
    });
  for (const [i, planned] of jobs.entries()) {
    fs.mkdirSync(path.dirname(files[i]), { recursive: true });
    const job = {
      document,
      sizeIndex: planned.sizeIndex,
      slideIndex: planned.slide ?? 0,
      format: format.type,
      settings,
      fileStem: path.basename(files[i], `.${format.extension}`),
      out: format.writesFile ? files[i] : undefined,
      brandFamilies: local.families,
    } as RenderJob;
    const result = await renderJob(job, { fetcher, ffmpegPath: options.ffmpegPath });
    if (!format.writesFile) fs.writeFileSync(files[i], result.bytes);
    if (result.backup) fs.writeFileSync(files[i].replace(/\.[a-z0-9]+$/, '.jpg'), result.backup);
    for (const warning of result.warnings ?? []) print(`warning: ${path.basename(files[i])}: ${warning}\n`);
    print(`${files[i]}\n`);
  }
}

/** `CODE: message`, then each detail on its own line, as a person reads the API's error envelope. */
function describeError(error: AppError): string {
  const lines = [`${error.code}: ${error.message}`];
  for (const detail of error.details ?? []) {
    const line = `${pointerToPath(detail.path) || detail.path}: ${detail.message}`;
    // A single detail usually is the message itself; printing it twice helps nobody.
    if (line !== error.message) lines.push(`  ${line}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `placard render` and returns the exit status: 0 written, 2 bad usage or invalid input, 1 anything else. */
export async function runRender(argv: string[], options: RenderCommandOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((text) => process.stdout.write(text));
  const stderr = options.stderr ?? ((text) => process.stderr.write(text));
  try {
    await render(parse(argv), options, stdout);
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      stderr(describeError(error));
      return 2;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS_')) {
      const usage = error instanceof UsageError && !error.showUsage ? '' : `${RENDER_USAGE}\n`;
      stderr(`placard render: ${(error as Error).message}\n${usage}`);
      return 2;
    }
    stderr(`placard render: ${(error as Error).stack ?? error}\n`);
    return 1;
  }
}

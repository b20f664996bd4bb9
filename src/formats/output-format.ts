// The OutputFormat contract (ARCHITECTURE formats/): everything that makes an export type what it is, in one object per
// type, so that the export request schema, the OpenAPI document, the export service, the job processor, the render
// worker and `placard render` ask the registry (registry.ts) instead of each keeping its own list and switch.
import type { Static, TObject, TSchema } from 'typebox';
import { Type } from 'typebox';
import type { DesignDocument, DesignSize } from '../domain/design.schema.js';
import type { AssetFetcher } from '../render/media/assets.js';
import type { BrandFamily } from '../render/text/brand-fonts.js';
import type { Finding } from './preflight/finding.js';

/** What preflight does in an export (exportSettings.preflight): nothing, report, or refuse a file with errors. */
export type PreflightMode = 'off' | 'warn' | 'fail';

/** What a render thread (or the CLI, in process) lends a format's render. */
export interface RenderContext {
  fetcher: AssetFetcher;
  /** FFMPEG_PATH, when configured. */
  ffmpegPath?: string | null;
  /** Long renders report output frames done and the total (the export shows it as progress). */
  onProgress?: (done: number, total: number) => void;
  /** Aborted when the pool cancels the render (its budget ran out, or its caller gave up). */
  signal?: AbortSignal;
}

/** What every render job carries, whatever its format. */
export interface RenderJobBase {
  document: DesignDocument;
  /**
   * Names the document's content (issue 21): the pool then sends the document to a render thread only when that thread
   * has not kept it yet, instead of cloning it into every job. Two jobs with one key must carry equal documents.
   */
  documentKey?: string;
  sizeIndex: number;
  /** The slide of a per-slide file; 0 for formats that make one file of the whole size. */
  slideIndex: number;
  /** Draw elements whose source was rejected as if they had no image (thumbnails); exports fail the file instead. */
  skipRejectedSources?: boolean;
  /** Long renders post `{ id, progress }` on PROGRESS_CHANNEL (progress.ts) under this id. */
  progressId?: string;
  /**
   * The render stops when this id is posted on CANCEL_CHANNEL (progress.ts): it kills its child processes (ffmpeg)
   * and waits for them before it rejects, so nothing is left running or unreaped when the pool gives up on it.
   */
  cancelId?: string;
  /** Formats that write their file themselves (`writesFile`): the path to write; the answer then carries no bytes. */
  out?: string;
  /** The file's name without its extension (HTML5 checks it against the network's naming rules). */
  fileStem?: string;
  /** Team brand fonts the document names by their internal names (render/text/brand-fonts.ts). */
  brandFamilies?: BrandFamily[];
  /** Exports: run preflight on the render thread before the render (absent or `off`: not at all). */
  preflight?: { mode: PreflightMode; sizeHash: string };
  /**
   * Whole-download budget of each media fetch, shorter than the 15 s of SPEC §9 (render URLs answer while a person or
   * a mail client waits). Default: the thread's fetcher and its budget.
   */
  fetchTimeoutMs?: number;
}

/** The job of one format: its type and its resolved settings (a discriminated union over the registry's formats). */
export type FormatJob<T extends string, R> = RenderJobBase & { format: T; settings: R };

export interface RenderResult {
  bytes: Uint8Array;
  /** Advice about the file (an ad network's package validator). */
  warnings?: string[];
  /** A second file delivered beside this one (the backup JPG some networks want outside an HTML5 zip). */
  backup?: Uint8Array | null;
  /** Findings the format makes from its own file (HTML5_WEIGHT from the package made). */
  findings?: Finding[];
}

export interface OutputFormat<T extends string = string, S extends TObject = TObject, R = unknown> {
  /** The canonical export type, as stored and as `type` answers it lower-cased. */
  type: T;
  /** Other names a request may use (`jpeg`, `html5`); matched case-insensitively like the type. */
  aliases: readonly string[];
  /**
   * The exportSettings this format reads, each property described; the export request schema and the OpenAPI
   * document are the union of every format's. No `default` keywords: the composed schema is validated with
   * useDefaults, and one format's default must not land in another's request; `defaults` applies them.
   */
  settings: S;
  /** The settings that apply, completed with their defaults: stored with the export, part of its cache key. */
  defaults(given: Static<S>): R;
  /** One file per slide of each size, or one file of the whole size. */
  files: 'perSlide' | 'perSize';
  extension: string;
  contentType: string;
  /** Which time budget a render gets: a still's (config.renderTimeouts.stillSeconds) or a video's. */
  budget: 'still' | 'video';
  /** Whether its file is one picture of the final state, fit to become the new design's thumbnail. */
  thumbnail: boolean;
  /** Whether `render` writes `job.out` itself (a long video is streamed to disk, never held in memory). */
  writesFile?: boolean;
  /**
   * Set when the file embeds the fonts it uses ("a PDF"): a brand font whose licence (OS/2 fsType) forbids embedding
   * then fails the file with FONT_NOT_EMBEDDABLE instead of breaching it. Raster formats only draw the glyphs.
   */
  embedsFonts?: string;
  /**
   * The checks before the answer, per size to export: VALIDATION_FAILED (with the exportSettings path) or
   * UNPROCESSABLE. The API runs them before it creates anything and `placard render` before it writes anything.
   */
  check(size: DesignSize, settings: R): void;
  /** Output pixels per design pixel of the file (exportSettings.scale); preflight judges image resolution by it. */
  outputScale?(settings: R): number;
  /**
   * Checks of the format's own that preflight adds per size when no file is made (POST …/preflight, the CLI): HTML5
   * packages and weighs the package. In an export, `render` returns them with the file instead.
   */
  preflight?(
    document: DesignDocument,
    sizeIndex: number,
    about: Pick<Finding, 'sizeHash' | 'sizeName'>,
    settings: R,
    fetcher: AssetFetcher,
  ): Promise<Finding[]>;
  /** Makes the file; runs on a render thread (or in the CLI's process). */
  render(job: FormatJob<T, R>, context: RenderContext): Promise<RenderResult>;
}

/** Infers a format's generics from its literal (the registry keeps them for the typed job union). */
export function defineFormat<T extends string, S extends TObject, R>(format: OutputFormat<T, S, R>) {
  return format;
}

/** Settings shared by several formats, described once. */
export const ScaleSetting = (formats: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 16,
    description: `${formats}: output pixels per design pixel, default 1; scale × side must stay within 16,000 px`,
  });

export const QualitySetting = (description: string): TSchema => Type.Integer({ minimum: 1, maximum: 100, description });

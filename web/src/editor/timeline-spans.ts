// What the editor's timeline panel draws and how it drives the canvas, as pure functions of the document. The spans
// follow the motion model of src/domain/timeline.ts (which the HTML5 export's CSS is made from): an animation runs
// over [start, start + duration] seconds of its slide, slides play in order, and a slide's end cuts what still runs.
// Kept free of React and the DOM so it is unit-tested in Node (test/web/timeline-spans.test.ts).

/**
 * SPEC §5's defaults, as src/domain/timeline.ts has them (its unit test checks they agree). Not imported from there:
 * its types reach into the whole server-side schema, which the studio's build must not type-check.
 */
export const ANIMATION_DEFAULTS = { direction: 'in', from: 'left', start: 0, duration: 0.5, easing: 'easeOut' } as const;
export const DEFAULT_SLIDE_DURATION = 5;

/** An animation as the document holds it (fields left out take the schema's defaults). */
export interface AnimationInput {
  effect: string;
  direction?: string;
  from?: string;
  start?: number;
  duration?: number;
  easing?: string;
}
export interface SizeInput {
  slides: { duration?: number; elements: { name: string; animations?: unknown }[] }[];
}

export interface AnimationSpan {
  /** The animation's index in its element's `animations`. */
  index: number;
  effect: string;
  direction: 'in' | 'out';
  /** Global seconds (from the start of the size's play) at which the animation starts and stops being drawn. */
  start: number;
  end: number;
  /** Its slide ends before it does, so it is drawn only up to the slide's end (nothing at all if it starts after). */
  cut: boolean;
  /** What a bar says: "slide in from left, 0–0.6 s". */
  label: string;
}
export interface TimelineRow {
  name: string;
  slideIndex: number;
  spans: AnimationSpan[];
}
export interface SlideBar {
  slideIndex: number;
  start: number;
  end: number;
}

const seconds = (value: number) => `${Math.round(value * 100) / 100}`;

function animationsOf(element: { animations?: unknown }): AnimationInput[] {
  return Array.isArray(element.animations) ? (element.animations as AnimationInput[]) : [];
}

/** When each slide plays: in order, each for its duration. */
export function slideBars(size: SizeInput): SlideBar[] {
  let start = 0;
  return size.slides.map((slide, slideIndex) => {
    const end = start + (slide.duration ?? DEFAULT_SLIDE_DURATION);
    const bar = { slideIndex, start, end };
    start = end;
    return bar;
  });
}

/** One row per element that has animations, in drawing order slide by slide, with each animation's span. */
export function timelineRows(size: SizeInput): TimelineRow[] {
  const slides = slideBars(size);
  const rows: TimelineRow[] = [];
  size.slides.forEach((slide, slideIndex) => {
    const { start: slideStart, end: slideEnd } = slides[slideIndex];
    for (const element of slide.elements) {
      const animations = animationsOf(element);
      if (animations.length === 0) continue;
      const spans = animations.map((animation, index): AnimationSpan => {
        const direction = animation.direction === 'out' ? 'out' : ANIMATION_DEFAULTS.direction;
        const from = slideStart + (animation.start ?? ANIMATION_DEFAULTS.start);
        const to = from + (animation.duration ?? ANIMATION_DEFAULTS.duration);
        const side = animation.effect === 'slide' ? ` ${direction === 'in' ? 'from' : 'to'} ${animation.from ?? ANIMATION_DEFAULTS.from}` : '';
        return {
          index,
          effect: animation.effect,
          direction,
          start: Math.min(from, slideEnd),
          end: Math.min(to, slideEnd),
          cut: to > slideEnd,
          label: `${animation.effect} ${direction}${side}, ${seconds(from)}–${seconds(to)} s${to > slideEnd ? ' (cut by the slide’s end)' : ''}`,
        };
      });
      rows.push({ name: element.name, slideIndex, spans });
    }
  });
  return rows;
}

/** Seconds of one play of the size: the slider's end. */
export function timelineDuration(size: SizeInput): number {
  return size.slides.reduce((sum, slide) => sum + (slide.duration ?? DEFAULT_SLIDE_DURATION), 0);
}

/** How often the exports play the slides (the document's `loop`, default 1), as the timeline says it. */
export function loopLabel(loop: unknown): string {
  if (loop === 'infinite' || loop === 0) return 'Exports loop forever';
  const plays = typeof loop === 'number' && loop > 0 ? loop : 1;
  return plays === 1 ? 'Exports play once' : `Exports play ${plays} times`;
}

/**
 * The `currentTime` (ms) that shows global time `t` on a CSS animation of the canvas whose one iteration (one play of
 * the size) lasts `iterationMs`. The export's animations repeat (`animation-iteration-count` is the loop count), so
 * the end of the play is held 1 ms before it: at exactly `iterationMs` a looping animation is back at its first frame.
 */
export function animationTime(t: number, iterationMs: number): number {
  if (!Number.isFinite(t) || t <= 0) return 0;
  if (!(iterationMs > 0)) return 0;
  return Math.min(t * 1000, iterationMs - 1);
}

/** Where a play started at `from` seconds is after `elapsedMs`; it stops at the end of the size's play. */
export function playTime(from: number, elapsedMs: number, duration: number): { time: number; done: boolean } {
  const time = Math.min(duration, Math.max(0, from) + Math.max(0, elapsedMs) / 1000);
  return { time, done: time >= duration };
}

/** Where a play starts from the slider at `time`: from the start again when the slider is at the end. */
export function playStart(time: number, duration: number): number {
  return time >= duration || time < 0 ? 0 : time;
}

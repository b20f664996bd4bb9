// The motion model (SPEC §5 animations, slides, loop): pure functions over the document that say where every element is
// at a time. The raster renderer, the GIF and MP4 encoders and the HTML5 packager all read motion from here, so a CSS
// animation of the same document moves exactly like the frames. Times are seconds; lengths are design px.
//
// One animation interpolates between the element's own state and its effect's *away* state, eased by a CSS timing
// function over [start, start + duration] of its slide (CSS: `animation-delay: start`, `animation-fill-mode: both`):
// - `in` goes from away to own, holding away before `start`; `out` goes from own to away, holding away after the end.
// - Away states: fade → opacity 0; slide → translated until the element's box (its axis-aligned bounding box when it is
//   rotated) is just outside the frame on the `from` side (default left; for `out` the side it leaves by); zoom → scale
//   0; rotate → −360° for in, +360° for out (a full clockwise turn either way); blur → 20 px, still opaque.
// - Easings: linear; easeIn, easeOut, easeInOut are CSS `ease-in`, `ease-out`, `ease-in-out`; cubic-bezier(x1, y1, x2,
//   y2) is solved for x as browsers do (Newton, then bisection), so y may overshoot 0..1.
// - Several animations of one element combine as nested CSS wrappers would: opacities multiply (each clamped to 0..1),
//   translations add, scales multiply, rotations add, blurs combine as Gaussian blurs do, √(b1² + b2²) (equal to their
//   sum whenever at most one is non-zero, i.e. whenever they do not overlap in time).
// - Drawing order (what a packager reproduces): the element with its own rotation, scaled and rotated by the motion
//   around its centre, translated, then blurred and faded as a whole; blur is in frame px and not scaled by zoom.
// - localTime = +Infinity (FINAL_FRAME) is the final state: every `in` done, every `out` done. Stills draw it.
//
// Slides play in order, each for its `duration` (default 5 s); an animation that runs past its slide's end is cut by
// the next slide, except on the last slide, whose final frame is its final state (so the last frame of an MP4 or GIF
// equals the PNG export of that slide).
import type { Animation, BaseElement } from '../elements/common.js';
import type { DesignDocument, DesignSize } from './design.schema.js';

/** Where an element is relative to its own state; the identity is NO_MOTION. */
export interface ElementMotion {
  /** Multiplier of the element's opacity, 0..1. */
  opacity: number;
  /** Design px, added to x. */
  translateX: number;
  /** Design px, added to y. */
  translateY: number;
  /** Uniform scale around the element's centre (negative flips, as in CSS). */
  scale: number;
  /** Degrees clockwise around the element's centre, added to its rotation. */
  rotate: number;
  /** Gaussian blur radius (standard deviation, as CSS `blur()`) in design px. */
  blur: number;
}

export const NO_MOTION: Readonly<ElementMotion> = Object.freeze({
  opacity: 1,
  translateX: 0,
  translateY: 0,
  scale: 1,
  rotate: 0,
  blur: 0,
});

/** The time of a frame that shows the final state (of a slide as local time, of a size as global time). */
export const FINAL_FRAME = Number.POSITIVE_INFINITY;

/** Defaults of SPEC §5 (also the schema defaults; repeated for documents built in code). */
export const ANIMATION_DEFAULTS = {
  direction: 'in',
  from: 'left',
  start: 0,
  duration: 0.5,
  easing: 'easeOut',
} as const;
export const DEFAULT_SLIDE_DURATION = 5;
/** The blur of blur's away state, in px. */
export const AWAY_BLUR = 20;

// ---------------------------------------------------------------------------------------------------------------------
// Easing

type Bezier = readonly [x1: number, y1: number, x2: number, y2: number];

/** The CSS keywords the named easings are. */
const NAMED: Record<string, Bezier | 'linear'> = {
  linear: 'linear',
  easeIn: [0.42, 0, 1, 1],
  easeOut: [0, 0, 0.58, 1],
  easeInOut: [0.42, 0, 0.58, 1],
};

const CUBIC_BEZIER = /^cubic-bezier\(([^,]+),([^,]+),([^,]+),([^,)]+)\)$/;
const parsed = new Map<string, Bezier | 'linear'>();

/** The curve of an easing: 'linear' or cubic-bezier control points. RangeError for anything else. */
export function easingCurve(easing: string | undefined = ANIMATION_DEFAULTS.easing): Bezier | 'linear' {
  if (Object.hasOwn(NAMED, easing)) return NAMED[easing];
  let curve = parsed.get(easing);
  if (curve) return curve;
  const match = CUBIC_BEZIER.exec(easing.trim());
  const numbers = match?.slice(1).map((part) => (part.trim() === '' ? Number.NaN : Number(part)));
  if (!numbers || numbers.some((n) => !Number.isFinite(n)) || !(numbers[0] >= 0 && numbers[0] <= 1)) {
    throw new RangeError(
      `easing must be linear, easeIn, easeOut, easeInOut or cubic-bezier(x1, y1, x2, y2) with x1 and x2 in 0..1, received '${easing}'`,
    );
  }
  if (!(numbers[2] >= 0 && numbers[2] <= 1)) {
    throw new RangeError(`cubic-bezier x2 must be in 0..1, received '${easing}'`);
  }
  curve = [numbers[0], numbers[1], numbers[2], numbers[3]];
  if (parsed.size > 1000) parsed.clear();
  parsed.set(easing, curve);
  return curve;
}

/** The easing as a CSS `animation-timing-function` value that moves exactly like `ease`. */
export function cssTimingFunction(easing?: string): string {
  const curve = easingCurve(easing);
  return curve === 'linear' ? 'linear' : `cubic-bezier(${curve.join(', ')})`;
}

const EPSILON = 1e-7;

/** The y of the cubic Bézier (0,0) (x1,y1) (x2,y2) (1,1) at `x`, solved as WebKit/Chromium do. */
function solveBezier([x1, y1, x2, y2]: Bezier, x: number): number {
  const cx = 3 * x1;
  const bx = 3 * (x2 - x1) - cx;
  const ax = 1 - cx - bx;
  const cy = 3 * y1;
  const by = 3 * (y2 - y1) - cy;
  const ay = 1 - cy - by;
  const sampleX = (t: number) => ((ax * t + bx) * t + cx) * t;
  const slopeX = (t: number) => (3 * ax * t + 2 * bx) * t + cx;
  const sampleY = (t: number) => ((ay * t + by) * t + cy) * t;

  let t = x;
  for (let i = 0; i < 8; i++) {
    const error = sampleX(t) - x;
    if (Math.abs(error) < EPSILON) return sampleY(t);
    const slope = slopeX(t);
    if (Math.abs(slope) < 1e-6) break;
    t -= error / slope;
  }
  // Newton did not converge (flat spots): bisection, which always does since x(t) is monotonic for x1, x2 in 0..1.
  let low = 0;
  let high = 1;
  t = x;
  for (let i = 0; i < 64 && low < high; i++) {
    const value = sampleX(t);
    if (Math.abs(value - x) < EPSILON) break;
    if (x > value) low = t;
    else high = t;
    t = (low + high) / 2;
  }
  return sampleY(t);
}

/**
 * Eased progress of `progress` (clamped to 0..1): 0 at 0 and 1 at 1 exactly; in between it may leave 0..1 for a
 * cubic-bezier whose y values do. Default easing easeOut.
 */
export function ease(easing: string | undefined, progress: number): number {
  if (Number.isNaN(progress)) throw new RangeError('progress must be a number, received NaN');
  const p = Math.min(1, Math.max(0, progress));
  const curve = easingCurve(easing);
  if (p === 0 || p === 1 || curve === 'linear') return p;
  return solveBezier(curve, p);
}

// ---------------------------------------------------------------------------------------------------------------------
// Motion of one element

export interface FrameBox {
  width: number;
  height: number;
}

type Geometry = Pick<BaseElement, 'x' | 'y' | 'width' | 'height' | 'rotation'>;

/** The state an `in` animation starts from and an `out` animation ends at (the other properties are NO_MOTION's). */
export function awayState(animation: Animation, element: Geometry, frame: FrameBox): ElementMotion {
  const direction = animation.direction ?? ANIMATION_DEFAULTS.direction;
  switch (animation.effect) {
    case 'fade':
      return { ...NO_MOTION, opacity: 0 };
    case 'zoom':
      return { ...NO_MOTION, scale: 0 };
    case 'rotate':
      return { ...NO_MOTION, rotate: direction === 'in' ? -360 : 360 };
    case 'blur':
      return { ...NO_MOTION, blur: AWAY_BLUR };
    case 'slide': {
      // The bounding box of the element turned by its rotation around its centre, so no corner stays in the frame.
      const radians = ((element.rotation ?? 0) * Math.PI) / 180;
      const cos = Math.abs(Math.cos(radians));
      const sin = Math.abs(Math.sin(radians));
      const halfWidth = (element.width * cos + element.height * sin) / 2;
      const halfHeight = (element.width * sin + element.height * cos) / 2;
      const cx = element.x + element.width / 2;
      const cy = element.y + element.height / 2;
      switch (animation.from ?? ANIMATION_DEFAULTS.from) {
        case 'left':
          return { ...NO_MOTION, translateX: -(cx + halfWidth) };
        case 'right':
          return { ...NO_MOTION, translateX: frame.width - (cx - halfWidth) };
        case 'top':
          return { ...NO_MOTION, translateY: -(cy + halfHeight) };
        case 'bottom':
          return { ...NO_MOTION, translateY: frame.height - (cy - halfHeight) };
      }
    }
  }
  throw new RangeError(`unknown animation effect '${(animation as { effect: string }).effect}'`);
}

/**
 * How far along the way from the element's own state (0) to the away state (1) one animation is at `localTime`: an
 * `in` is 1 until `start` and eases to 0; an `out` is 0 until `start` and eases to 1. May overshoot with cubic-bezier.
 */
export function awayAmount(animation: Animation, localTime: number): number {
  if (Number.isNaN(localTime)) throw new RangeError('time must be a number, received NaN');
  const start = animation.start ?? ANIMATION_DEFAULTS.start;
  const duration = animation.duration ?? ANIMATION_DEFAULTS.duration;
  const progress = duration > 0 ? (localTime - start) / duration : localTime >= start ? 1 : 0;
  const eased = ease(animation.easing, progress);
  return (animation.direction ?? ANIMATION_DEFAULTS.direction) === 'in' ? 1 - eased : eased;
}

/** The combined motion of all the element's animations at `localTime` seconds since its slide started. */
export function motionAt(
  element: Geometry & Pick<BaseElement, 'animations'>,
  localTime: number,
  frame: FrameBox,
): ElementMotion {
  if (Number.isNaN(localTime)) throw new RangeError('time must be a number, received NaN');
  const motion = { ...NO_MOTION };
  let blurSquared = 0;
  for (const animation of element.animations ?? []) {
    const amount = awayAmount(animation, localTime);
    if (amount === 0) continue;
    const away = awayState(animation, element, frame);
    const along = (own: number, target: number) => own + (target - own) * amount;
    motion.opacity *= Math.min(1, Math.max(0, along(1, away.opacity)));
    motion.translateX += along(0, away.translateX);
    motion.translateY += along(0, away.translateY);
    motion.scale *= along(1, away.scale);
    motion.rotate += along(0, away.rotate);
    blurSquared += Math.max(0, along(0, away.blur)) ** 2;
  }
  motion.blur = Math.sqrt(blurSquared);
  return motion;
}

// ---------------------------------------------------------------------------------------------------------------------
// Slides, frames and loops

type Slides = Pick<DesignSize, 'slides'>;

export interface SlideSpan {
  slideIndex: number;
  /** Global seconds at which the slide starts. */
  start: number;
  /** Global seconds at which the next slide starts. */
  end: number;
}

/** When each slide plays: in order, each for its duration (default 5 s). */
export function slideSpans(size: Slides): SlideSpan[] {
  let start = 0;
  return size.slides.map((slide, slideIndex) => {
    const end = start + (slide.duration ?? DEFAULT_SLIDE_DURATION);
    const span = { slideIndex, start, end };
    start = end;
    return span;
  });
}

/** Seconds one play of the size's slides lasts. */
export function sizeDuration(size: Slides): number {
  return size.slides.reduce((sum, slide) => sum + (slide.duration ?? DEFAULT_SLIDE_DURATION), 0);
}

/**
 * The slide playing at global time `t` and the time within it. Times before 0 are 0; t ≥ the size's duration
 * (including FINAL_FRAME) is the last slide at localTime FINAL_FRAME, its final state.
 */
export function slideAt(size: Slides, t: number): { slideIndex: number; localTime: number } {
  if (Number.isNaN(t)) throw new RangeError('time must be a number, received NaN');
  const spans = slideSpans(size);
  const time = Math.max(0, t);
  for (const span of spans) {
    if (time < span.end) return { slideIndex: span.slideIndex, localTime: time - span.start };
  }
  return { slideIndex: spans.length - 1, localTime: FINAL_FRAME };
}

/**
 * The global times of the frames of `duration` seconds at `fps`: max(1, round(duration × fps)) frames, frame i at
 * i / fps, except the last, which is FINAL_FRAME so it shows the final state of the last slide (equal to the still
 * export of that slide). One frame (a static GIF) is therefore the final state.
 */
export function frameTimes(duration: number, fps: number): number[] {
  if (!(fps > 0) || !Number.isFinite(fps)) throw new RangeError(`fps must be a positive number, received ${fps}`);
  if (!(duration >= 0) || !Number.isFinite(duration)) {
    throw new RangeError(`duration must be a non-negative number of seconds, received ${duration}`);
  }
  const count = Math.max(1, Math.round(duration * fps));
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? FINAL_FRAME : i / fps));
}

/**
 * Element types whose pixels change with time by themselves, besides their animations: a frame with one of these
 * visible is keyed by its time. (Belongs on ElementKind once a second such type appears.)
 */
const TIME_VARYING_TYPES: ReadonlySet<string> = new Set(['video']);

const quantise = (value: number, steps: number) => String(Math.round(value * steps));

/**
 * A key of the frame at global time `t` of the size: equal keys mean identical pixels (same slide, every drawn element
 * at the same motion to well under a pixel: 1/1024 of opacity, 1/1000 px of movement, zoom, turn and blur), so an
 * encoder draws each distinct frame once and repeats it. A slide showing a video is keyed by its time as well.
 */
export function frameKey(size: Pick<DesignSize, 'slides' | 'width' | 'height'>, t: number): string {
  const { slideIndex, localTime } = slideAt(size, t);
  const parts = [`s${slideIndex}`];
  let timeVarying = false;
  for (const element of size.slides[slideIndex].elements as BaseElement[]) {
    if (element.visible === false) continue;
    const motion = motionAt(element, localTime, size);
    const alpha = (element.opacity ?? 1) * motion.opacity;
    if (Math.round(alpha * 1024) === 0 || motion.scale === 0) {
      parts.push('-');
      continue;
    }
    timeVarying ||= TIME_VARYING_TYPES.has(element.type);
    const extent = Math.max(1, element.width, element.height);
    const radius = Math.max(1, Math.hypot(element.width, element.height) / 2);
    parts.push(
      [
        quantise(motion.opacity, 1024),
        quantise(motion.translateX, 1000),
        quantise(motion.translateY, 1000),
        quantise(motion.scale * extent, 1000),
        quantise(((motion.rotate * Math.PI) / 180) * radius, 1000),
        quantise(motion.blur, 1000),
      ].join(','),
    );
  }
  if (timeVarying) parts.push(`t${localTime}`);
  return parts.join('|');
}

/**
 * How many times animated exports play the slides: the document's `loop` (default 1), 0 meaning forever ("infinite",
 * the value GIF's NETSCAPE2.0 loop field uses for forever). Note that field counts *repeats*: a GIF encoder writes
 * n − 1 for n plays (gifenc `repeat: -1`, no loop extension, for one play); CSS `animation-iteration-count` takes n.
 */
export function loopCount(document: Pick<DesignDocument, 'loop'>): number {
  const loop = document.loop ?? 1;
  return loop === 'infinite' ? 0 : loop;
}

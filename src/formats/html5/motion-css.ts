// The motion of domain/timeline.ts as CSS @keyframes, so a package moves like the GIF and MP4 frames. One animation
// per element spans one play of the size (all slides), so every element and slide restarts together on each loop.
// Keyframes sit at every animation start and end; a stretch that is exactly one animation gets that animation's
// timing function (exact, since motion is linear in the eased amount of a lone animation); stretches where animations
// overlap are sampled at SAMPLE_FPS with linear steps (CSS cannot sum two eased curves).
import type { DesignSize } from '../../domain/design.schema.js';
import {
  ANIMATION_DEFAULTS,
  cssTimingFunction,
  type ElementMotion,
  FINAL_FRAME,
  motionAt,
  type SlideSpan,
} from '../../domain/timeline.js';
import type { BaseElement } from '../../elements/common.js';

const SAMPLE_FPS = 30;

const num = (value: number) => String(Math.round(value * 1000) / 1000);
const pct = (time: number, total: number) => `${Math.round((time / total) * 1e6) / 1e4}%`;

/** The element's transform, opacity and blur for one motion state. */
export function motionStyle(element: BaseElement, motion: ElementMotion, withBlur: boolean): string {
  const rotation = (element.rotation ?? 0) + motion.rotate;
  const parts = [
    `transform:translate(${num(motion.translateX)}px,${num(motion.translateY)}px) rotate(${num(rotation)}deg) scale(${num(motion.scale)})`,
    `opacity:${num((element.opacity ?? 1) * Math.min(1, Math.max(0, motion.opacity)))}`,
  ];
  if (withBlur) parts.push(`filter:blur(${num(motion.blur)}px)`);
  return parts.join(';');
}

interface Iteration {
  /** Seconds of one play of the size. */
  total: number;
  /** CSS animation-iteration-count. */
  count: string;
}

/** `@keyframes` and the `animation` declaration of one animated element of slide `span` (null: it never moves). */
export function elementAnimation(
  id: string,
  element: BaseElement,
  span: SlideSpan,
  isLastSlide: boolean,
  size: Pick<DesignSize, 'width' | 'height'>,
  iteration: Iteration,
): { keyframes: string; animation: string } | null {
  const animations = element.animations ?? [];
  if (animations.length === 0) return null;
  const length = span.end - span.start;
  const withBlur = animations.some((a) => a.effect === 'blur');
  const ranges = animations.map((a) => {
    const start = a.start ?? ANIMATION_DEFAULTS.start;
    return { start, end: start + (a.duration ?? ANIMATION_DEFAULTS.duration), easing: a.easing };
  });
  const points = new Set<number>([0, length]);
  for (const r of ranges) {
    if (r.start < length) points.add(r.start);
    if (r.end < length) points.add(r.end);
  }
  const times = [...points].sort((a, b) => a - b);
  const state = (local: number) => motionAt(element, isLastSlide && local >= length ? FINAL_FRAME : local, size);
  const frames: string[] = [];
  const frame = (local: number, timing?: string) =>
    frames.push(
      `${pct(span.start + local, iteration.total)}{${motionStyle(element, state(local), withBlur)}${timing ? `;animation-timing-function:${timing}` : ''}}`,
    );
  if (span.start > 0) frames.push(`0%{${motionStyle(element, state(0), withBlur)}}`);
  for (let i = 0; i < times.length - 1; i++) {
    const [from, to] = [times[i], times[i + 1]];
    const active = ranges.filter((r) => r.start < to && r.end > from);
    const exact = active.length === 1 && active[0].start === from && active[0].end === to;
    if (active.length === 0 || exact) {
      frame(from, exact ? cssTimingFunction(active[0].easing) : 'linear');
      continue;
    }
    const steps = Math.max(1, Math.ceil((to - from) * SAMPLE_FPS));
    for (let s = 0; s < steps; s++) frame(from + ((to - from) * s) / steps, 'linear');
  }
  frame(length);
  if (span.end < iteration.total) frames.push(`100%{${motionStyle(element, state(length), withBlur)}}`);
  return {
    keyframes: `@keyframes ${id}{${frames.join('')}}`,
    animation: `animation:${id} ${num(iteration.total)}s linear 0s ${iteration.count} both`,
  };
}

/** Shows a slide only while it plays (the last one stays once the play ends); null for a single-slide size. */
export function slideAnimation(
  id: string,
  span: SlideSpan,
  isLastSlide: boolean,
  iteration: Iteration,
): { keyframes: string; animation: string } | null {
  if (span.start === 0 && span.end >= iteration.total) return null;
  // visibility, not opacity: a hidden slide must not take clicks on its elements' own links.
  const frames = ['0%{visibility:hidden}'];
  frames.push(`${pct(span.start, iteration.total)}{visibility:visible}`);
  if (!isLastSlide) frames.push(`${pct(span.end, iteration.total)}{visibility:hidden}`);
  frames.push(`100%{visibility:${isLastSlide ? 'visible' : 'hidden'}}`);
  if (span.start === 0) frames.shift();
  return {
    keyframes: `@keyframes ${id}{${frames.join('')}}`,
    animation: `animation:${id} ${num(iteration.total)}s step-end 0s ${iteration.count} both`,
  };
}

// The animation timeline under the canvas (issue 19): a time slider that scrubs, Play/Pause, and one row per animated
// element with its animations as bars. The canvas moves by the export's own CSS animations (the studio canvas answers
// the package's @keyframes): while the timeline is in use every animation of the canvas is paused and set to the
// slider's time through the Web Animations API, so what shows at 0.3 s is what the HTML5 export shows at 0.3 s.
//
// Two modes. Editing (the default): the canvas shows the final state, as stills export, without the keyframes, and
// the element handles are there. Timeline (after a scrub or Play, until "Back to editing"): the keyframes are on, the
// handles hide (they would frame the element where it rests, not where it is drawn at that time), and a click on the
// canvas or a row still selects.
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { EditorSize } from './document';
import { animationTime, loopLabel, playStart, playTime, slideBars, timelineDuration, timelineRows } from './timeline-spans';

const pct = (value: number, total: number) => `${total > 0 ? (value / total) * 100 : 0}%`;

/** Pauses every animation of the canvases in `area` at global time `t` (each clamped to its own play). */
function showTime(area: HTMLElement | null, t: number) {
  if (!area) return;
  for (const canvas of area.querySelectorAll<HTMLElement>('[data-testid=canvas]')) {
    for (const animation of canvas.getAnimations({ subtree: true })) {
      const iteration = Number(animation.effect?.getTiming().duration ?? 0);
      animation.pause();
      animation.currentTime = animationTime(t, iteration);
    }
  }
}

export function Timeline({
  size,
  loop,
  selected,
  canvasArea,
  motion,
  onMotion,
  onSelect,
}: {
  size: EditorSize;
  /** The document's `loop`: how often exports play (the timeline plays once). */
  loop: unknown;
  selected: readonly string[];
  /** Holds the canvases the timeline drives. */
  canvasArea: RefObject<HTMLElement | null>;
  /** True while the timeline drives the canvas (the canvas then carries the keyframes and hides its handles). */
  motion: boolean;
  onMotion(on: boolean): void;
  onSelect(name: string): void;
}) {
  const duration = timelineDuration(size);
  const rows = timelineRows(size);
  const slides = slideBars(size);
  const [time, setTime] = useState(duration);
  const [playing, setPlaying] = useState(false);
  const shown = motion ? Math.min(time, duration) : duration;
  const timeRef = useRef(shown);
  timeRef.current = shown;

  // Before paint, so a newly keyed canvas never shows a frame of its animations running on their own.
  useLayoutEffect(() => {
    if (motion) showTime(canvasArea.current, shown);
  }, [motion, shown, canvasArea]);

  // A redrawn canvas (a change answered by the server) brings new animations: set them to the time as well.
  useEffect(() => {
    const area = canvasArea.current;
    if (!area || !motion) return;
    const observer = new MutationObserver(() => showTime(area, timeRef.current));
    observer.observe(area, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [motion, canvasArea]);

  // Play: the slider follows the clock frame by frame and stops at the end of the size's play.
  useEffect(() => {
    if (!playing) return;
    const from = playStart(timeRef.current, duration);
    const started = performance.now();
    let frame = 0;
    const tick = (now: number) => {
      // The canvas follows in the layout effect: slider and canvas come from one state, never apart.
      const next = playTime(from, now - started, duration);
      setTime(next.time);
      if (next.done) setPlaying(false);
      else frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [playing, duration]);

  const scrub = useCallback(
    (t: number) => {
      setPlaying(false);
      setTime(t);
      onMotion(true);
    },
    [onMotion],
  );

  return (
    <section className="timeline panel" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <div className="timeline-controls">
        <button
          type="button"
          onClick={() => {
            if (playing) {
              setPlaying(false);
              return;
            }
            if (!motion) setTime(0);
            onMotion(true);
            setPlaying(true);
          }}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <label htmlFor="timeline-time">Time</label>
        <input
          id="timeline-time"
          type="range"
          min={0}
          max={duration}
          step={0.01}
          value={shown}
          aria-valuetext={`${shown.toFixed(2)} seconds`}
          onChange={(e) => scrub(e.target.valueAsNumber)}
        />
        <output htmlFor="timeline-time" aria-label="Current time">
          {motion ? `${shown.toFixed(2)} s` : 'End (editing)'} / {duration.toFixed(2)} s
        </output>
        {motion && (
          <button
            type="button"
            onClick={() => {
              setPlaying(false);
              onMotion(false);
            }}
          >
            Back to editing
          </button>
        )}
        <span className="timeline-loop">{loopLabel(loop)}</span>
      </div>
      <ul className="timeline-rows" aria-label="Animated elements">
        <li>
          <span className="timeline-name">Slides</span>
          <div className="timeline-track">
            {slides.map((s) => (
              <span
                key={s.slideIndex}
                className="timeline-bar timeline-slide"
                style={{ left: pct(s.start, duration), width: pct(s.end - s.start, duration) }}
                title={`Slide ${s.slideIndex + 1}, ${s.start}–${s.end} s`}
              >
                {s.slideIndex + 1}
              </span>
            ))}
            <span className="timeline-head" style={{ left: pct(shown, duration) }} />
          </div>
        </li>
        {rows.map((row) => (
          <li key={`${row.slideIndex}/${row.name}`}>
            <button
              type="button"
              className="timeline-name"
              aria-pressed={selected.includes(row.name)}
              onClick={() => onSelect(row.name)}
            >
              {row.name}
            </button>
            <div className="timeline-track">
              {row.spans.map((span) => (
                <span
                  key={span.index}
                  className={`timeline-bar timeline-${span.direction}${span.cut ? ' timeline-cut' : ''}`}
                  style={{ left: pct(span.start, duration), width: pct(span.end - span.start, duration) }}
                  title={span.label}
                >
                  <span className="visually-hidden">{span.label}</span>
                </span>
              ))}
              <span className="timeline-head" style={{ left: pct(shown, duration) }} />
            </div>
          </li>
        ))}
      </ul>
      {rows.length === 0 && <p>No element is animated: add an animation in the properties panel.</p>}
    </section>
  );
}

// The selected element's animations in the properties panel: one group of labelled controls per animation (effect,
// direction, the side a slide comes from or goes to, start, duration, easing), as the schema allows (SPEC §5,
// src/elements/common.ts). The whole list is one property of the element, so each edit is one change in the history
// and applies to the element in every size, as its other non-geometry properties do.
import { ANIMATION_DEFAULTS, type AnimationInput } from './timeline-spans';

const EFFECTS = ['fade', 'slide', 'zoom', 'rotate', 'blur'];
const DIRECTIONS = ['in', 'out'];
const SIDES = ['left', 'right', 'top', 'bottom'];
const EASINGS = ['linear', 'easeIn', 'easeOut', 'easeInOut'];
const CUSTOM = 'cubic-bezier';
/** What "custom" starts from: CSS `ease`. */
const CUSTOM_START = 'cubic-bezier(0.25, 0.1, 0.25, 1)';
/** The schema's limits, seconds. */
const MAX_SECONDS = 300;
const MAX_ANIMATIONS = 20;

export function Animations({
  animations,
  editable,
  onChange,
}: {
  animations: AnimationInput[];
  editable: boolean;
  onChange(next: AnimationInput[]): void;
}) {
  const update = (index: number, patch: Partial<AnimationInput>) =>
    onChange(
      animations.map((a, i) => {
        if (i !== index) return a;
        const next: AnimationInput = { ...a, ...patch };
        // `from` means something for a slide only; the schema would keep it, the export would ignore it.
        if (next.effect !== 'slide') delete next.from;
        return next;
      }),
    );
  return (
    <fieldset className="animations" disabled={!editable}>
      <legend>Animations</legend>
      {animations.length === 0 && <p>None.</p>}
      {animations.map((animation, i) => {
        const id = (field: string) => `anim-${i}-${field}`;
        const easing = animation.easing ?? ANIMATION_DEFAULTS.easing;
        const named = EASINGS.includes(easing);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: animations have no identity but their place in the list
          <fieldset key={i} className="animation">
            <legend>Animation {i + 1}</legend>
            <div className="field">
              <label htmlFor={id('effect')}>Effect</label>
              <select id={id('effect')} value={animation.effect} onChange={(e) => update(i, { effect: e.target.value })}>
                {EFFECTS.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={id('direction')}>Direction</label>
              <select
                id={id('direction')}
                value={animation.direction ?? ANIMATION_DEFAULTS.direction}
                onChange={(e) => update(i, { direction: e.target.value })}
              >
                {DIRECTIONS.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </div>
            {animation.effect === 'slide' && (
              <div className="field">
                <label htmlFor={id('from')}>Side</label>
                <select
                  id={id('from')}
                  value={animation.from ?? ANIMATION_DEFAULTS.from}
                  onChange={(e) => update(i, { from: e.target.value })}
                >
                  {SIDES.map((o) => (
                    <option key={o}>{o}</option>
                  ))}
                </select>
              </div>
            )}
            <Seconds
              id={id('start')}
              label="Start (s)"
              min={0}
              value={animation.start ?? ANIMATION_DEFAULTS.start}
              onChange={(start) => update(i, { start })}
            />
            <Seconds
              id={id('duration')}
              label="Duration (s)"
              min={0.01}
              value={animation.duration ?? ANIMATION_DEFAULTS.duration}
              onChange={(duration) => update(i, { duration })}
            />
            <div className="field">
              <label htmlFor={id('easing')}>Easing</label>
              <select
                id={id('easing')}
                value={named ? easing : CUSTOM}
                onChange={(e) => update(i, { easing: e.target.value === CUSTOM ? CUSTOM_START : e.target.value })}
              >
                {EASINGS.map((o) => (
                  <option key={o}>{o}</option>
                ))}
                <option value={CUSTOM}>cubic-bezier(…)</option>
              </select>
            </div>
            {!named && (
              <div className="field">
                <label htmlFor={id('bezier')}>Custom easing</label>
                <input
                  id={id('bezier')}
                  type="text"
                  value={easing}
                  placeholder={CUSTOM_START}
                  onChange={(e) => update(i, { easing: e.target.value })}
                />
              </div>
            )}
            <button type="button" onClick={() => onChange(animations.filter((_, j) => j !== i))}>
              Remove animation {i + 1}
            </button>
          </fieldset>
        );
      })}
      <button
        type="button"
        disabled={animations.length >= MAX_ANIMATIONS}
        onClick={() => onChange([...animations, { effect: 'fade', direction: 'in', start: 0, duration: 0.5 }])}
      >
        Add animation
      </button>
    </fieldset>
  );
}

/** A number of seconds within the schema's range; an empty or out-of-range entry is not sent. */
function Seconds({
  id,
  label,
  min,
  value,
  onChange,
}: {
  id: string;
  label: string;
  min: number;
  value: number;
  onChange(value: number): void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={min}
        max={MAX_SECONDS}
        step={0.1}
        value={value}
        onChange={(e) => {
          const n = e.target.valueAsNumber;
          if (e.target.value !== '' && Number.isFinite(n) && n >= min && n <= MAX_SECONDS) onChange(n);
        }}
      />
    </div>
  );
}

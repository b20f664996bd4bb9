// One size of the design, drawn by the server's HTML5 packager (POST /v1/studio/canvas): the markup the export writes,
// element by element, so what the editor shows is what exports. While a new drawing is on its way the previous one
// stays, and what the editor knows how the packager writes is applied to it in the frame of the change: geometry
// (position, size, rotation: the element box's style, exactly as set here, so dragging and nudging never wait for the
// server) and visibility, opacity, drawing order and colours (local-paint.ts). Text waits for the server's layout.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import Moveable, { type OnDrag, type OnResize } from 'react-moveable';
import { type EditorDocument, elementsOf } from './document';
import { paintLocally } from './local-paint';
import { type Patches, type PointerState, pointerStep, rounded } from './pointer';
import { isAdditive } from './selection';
import { drawCanvas } from './server';

// The packager's own rules for its boxes (package.ts), scoped to the canvas; the click area is not drawn here.
const CANVAS_CSS = `
.pc-ad .s{position:absolute;left:0;top:0;width:100%;height:100%}
.pc-ad .l{display:none}
.pc-ad .e{position:absolute;transform-origin:50% 50%;cursor:move}
.pc-ad .r{position:absolute;white-space:pre;line-height:1}
`;

/**
/**
 * Geometry-free view of the size: what the server must draw again when it changes. Local changes (colour, order…)
 * are in it too: the server's drawing confirms them, from its cache when only order or visibility changed. While the
 * timeline drives the canvas (`motion`), an animated element's geometry stays in: its keyframes carry its rotation and
 * its slide distance.
 */
function drawingKey(doc: EditorDocument, sizeIndex: number, motion: boolean): string {
  const size = doc.sizes[sizeIndex];
  return JSON.stringify([doc.loop, size], function (this: Record<string, unknown>, key, value) {
    if (key !== 'x' && key !== 'y' && key !== 'rotation') return value;
    return motion && Array.isArray(this.animations) && this.animations.length > 0 ? value : undefined;
  });
}

/**
 * The markup comes from our own packager, which escapes text; this is a second fence against a design that carries
 * active content (an SVG with an event handler): scripts and on* attributes are dropped before it enters the page.
 */
function sanitize(markup: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = markup;
  for (const node of template.content.querySelectorAll('script')) node.remove();
  for (const node of template.content.querySelectorAll('*')) {
    for (const attribute of [...node.attributes]) {
      if (/^on/i.test(attribute.name) || /^\s*javascript:/i.test(attribute.value)) node.removeAttribute(attribute.name);
    }
  }
  return template.content;
}

const sameBoxes = (a: readonly Element[], b: readonly Element[]) =>
  a.length === b.length && a.every((box, i) => box === b[i]);

/** The box's transform with its rotation set (the packager writes translate, rotate and scale; only rotate changes). */
const withRotation = (transform: string, degrees: number) =>
  /rotate\(/.test(transform)
    ? transform.replace(/rotate\([^)]*\)/, `rotate(${degrees}deg)`)
    : `${transform} rotate(${degrees}deg)`.trim();

/** A drag of one target (alone or in a group): moved on screen at once, its new place kept for the commit. */
function moved(e: OnDrag): Patches {
  const box = e.target as HTMLElement;
  box.style.left = `${e.left}px`;
  box.style.top = `${e.top}px`;
  return { [box.dataset.elementName ?? '']: { x: e.left, y: e.top } };
}

function resized(e: OnResize): Patches {
  const box = e.target as HTMLElement;
  box.style.width = `${e.width}px`;
  box.style.height = `${e.height}px`;
  box.style.left = `${e.drag.left}px`;
  box.style.top = `${e.drag.top}px`;
  return { [box.dataset.elementName ?? '']: { width: e.width, height: e.height, x: e.drag.left, y: e.drag.top } };
}

export function Canvas({
  doc,
  sizeIndex,
  selected,
  editable,
  zoom,
  onSelect,
  onGeometry,
  onDrawn,
  motion = false,
}: {
  doc: EditorDocument;
  sizeIndex: number;
  /** The chosen elements: one gets Moveable's handles, several get one group box that moves them together. */
  selected: readonly string[];
  editable: boolean;
  zoom: number;
  /** A click on an element (null: on empty canvas); `additive` when Shift, Ctrl or Cmd was held. */
  onSelect(name: string | null, additive: boolean): void;
  /** One gesture's changes, by element name: one change of the document. */
  onGeometry(patches: Patches): void;
  onDrawn?(): void;
  /** The timeline drives the canvas (Timeline.tsx): the export's keyframes are on and the handles hide. */
  motion?: boolean;
}) {
  const size = doc.sizes[sizeIndex];
  const key = drawingKey(doc, sizeIndex, motion);
  const canvas = useQuery({
    queryKey: ['canvas', sizeIndex, key],
    queryFn: () => drawCanvas(doc, sizeIndex),
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
  const root = useRef<HTMLDivElement>(null);
  const [targets, setTargets] = useState<HTMLElement[]>([]);
  const [guides, setGuides] = useState<HTMLElement[]>([]);
  const pointer = useRef<PointerState>({ kind: 'idle' });
  const markup = canvas.data?.markup;

  useLayoutEffect(() => {
    if (!root.current || markup === undefined) return;
    root.current.replaceChildren(sanitize(markup));
  }, [markup]);

  // What the editor draws itself, from the document onto the drawn boxes, every render: the drawing may be one change
  // behind.
  const elements = elementsOf(doc, sizeIndex);
  useLayoutEffect(() => {
    if (root.current) paintLocally(root.current, elements);
  });
  useLayoutEffect(() => {
    if (!root.current || pointer.current.kind !== 'idle') return;
    const byName = new Map(elements.map((e) => [e.name, e]));
    const boxes = [...root.current.querySelectorAll<HTMLElement>('[data-element-name]')];
    for (const box of boxes) {
      const element = byName.get(box.dataset.elementName ?? '');
      if (!element) continue;
      box.style.left = `${element.x}px`;
      box.style.top = `${element.y}px`;
      box.style.width = `${element.width}px`;
      box.style.height = `${element.height}px`;
      box.style.transform = withRotation(box.style.transform, element.rotation ?? 0);
    }
    const chosen =
      editable && !motion ? selected.flatMap((name) => boxes.find((b) => b.dataset.elementName === name) ?? []) : [];
    const others = boxes.filter((b) => !chosen.includes(b));
    // Only a new set of boxes is a new state: setting an equal array would render again, and again.
    setTargets((previous) => (sameBoxes(previous, chosen) ? previous : chosen));
    setGuides((previous) => (sameBoxes(previous, others) ? previous : others));
    onDrawn?.();
  });

  const step = (event: Parameters<typeof pointerStep>[1]) => {
    const next = pointerStep(pointer.current, event);
    pointer.current = next.state;
    if (next.commit) {
      onGeometry(Object.fromEntries(Object.entries(next.commit).map(([n, patch]) => [n, rounded(patch)])));
    }
  };
  const nameOf = (box: HTMLElement | SVGElement) => (box as HTMLElement).dataset.elementName ?? '';
  const names = targets.map(nameOf);
  const group = targets.length > 1;
  const motionCss = motion ? (canvas.data?.motionCss ?? '') : '';
  const style = useMemo(
    () => ({
      width: size?.width,
      height: size?.height,
      background: size?.backgroundColor ?? '#FFFFFF',
      transform: `scale(${zoom})`,
      transformOrigin: '0 0',
    }),
    [size, zoom],
  );
  if (!size) return null;
  return (
    <div className="pc-stage" style={{ width: size.width * zoom, height: size.height * zoom }}>
      <style>{CANVAS_CSS + motionCss}</style>
      {canvas.isError && <p role="alert">The canvas could not be drawn: {canvas.error.message}</p>}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the layers panel is the keyboard way to select */}
      <div
        className="pc-ad"
        role="img"
        aria-label={`Canvas of ${size.name} (${size.width}x${size.height})`}
        aria-busy={canvas.isFetching}
        data-testid="canvas"
        style={{ ...style, position: 'relative', overflow: 'hidden' }}
        onClick={(event) => {
          const box = (event.target as HTMLElement).closest<HTMLElement>('[data-element-name]');
          onSelect(box?.dataset.elementName ?? null, isAdditive(event));
        }}
      >
        <div ref={root} />
      </div>
      {targets.length > 0 && (
        // One element or a group: Moveable draws one box around all targets, snaps the box, and reports each target.
        <Moveable
          target={group ? targets : targets[0]}
          draggable
          resizable
          rotatable
          snappable
          snapThreshold={5}
          isDisplaySnapDigit
          elementGuidelines={guides}
          verticalGuidelines={[0, size.width / 2, size.width]}
          horizontalGuidelines={[0, size.height / 2, size.height]}
          zoom={1}
          onDragStart={() => step({ type: 'start', kind: 'translating', names })}
          onDrag={(e) => step({ type: 'move', patches: moved(e) })}
          onDragEnd={() => step({ type: 'end' })}
          onDragGroupStart={() => step({ type: 'start', kind: 'translating', names })}
          onDragGroup={(e) => step({ type: 'move', patches: Object.assign({}, ...e.events.map(moved)) })}
          onDragGroupEnd={() => step({ type: 'end' })}
          onResizeStart={() => step({ type: 'start', kind: 'resizing', names })}
          onResize={(e) => step({ type: 'move', patches: resized(e) })}
          onResizeEnd={() => step({ type: 'end' })}
          onResizeGroupStart={() => step({ type: 'start', kind: 'resizing', names })}
          onResizeGroup={(e) => step({ type: 'move', patches: Object.assign({}, ...e.events.map(resized)) })}
          onResizeGroupEnd={() => step({ type: 'end' })}
          onRotateStart={() => step({ type: 'start', kind: 'rotating', names })}
          onRotate={(e) => {
            e.target.style.transform = e.drag.transform;
            step({ type: 'move', patches: { [nameOf(e.target)]: { rotation: e.rotation } } });
          }}
          onRotateEnd={() => step({ type: 'end' })}
          onRotateGroupStart={() => step({ type: 'start', kind: 'rotating', names })}
          // In a group each element turns about the group's centre: it moves as well as turns, so its place is
          // kept as left/top (what the document stores) and only its own rotation stays in the transform.
          onRotateGroup={(e) =>
            step({
              type: 'move',
              patches: Object.assign(
                {},
                ...e.events.map((ev) => {
                  const box = ev.target as HTMLElement;
                  box.style.left = `${ev.drag.left}px`;
                  box.style.top = `${ev.drag.top}px`;
                  box.style.transform = withRotation(box.style.transform, ev.rotation);
                  return { [nameOf(box)]: { x: ev.drag.left, y: ev.drag.top, rotation: ev.rotation } };
                }),
              ),
            })
          }
          onRotateGroupEnd={() => step({ type: 'end' })}
          // A group box covers everything inside its bounds, so a click there reaches Moveable, not the canvas: it
          // finds the element under the pointer, and the click selects as one on the canvas would.
          onClickGroup={(e) => {
            const box = e.inputTarget.closest<HTMLElement>('[data-element-name]');
            onSelect(box?.dataset.elementName ?? null, isAdditive(e.inputEvent));
          }}
        />
      )}
    </div>
  );
}

// One size of the design, drawn by the server's HTML5 packager (POST /v1/studio/canvas): the markup the export writes,
// element by element, so what the editor shows is what exports. While a new drawing is on its way the previous one
// stays, and what the editor knows how the packager writes is applied to it in the frame of the change: geometry
// (position, size, rotation: the element box's style, exactly as set here, so dragging and nudging never wait for the
// server) and visibility, opacity, drawing order and colours (local-paint.ts). Text waits for the server's layout.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import Moveable from 'react-moveable';
import { type EditorDocument, elementsOf } from './document';
import { paintLocally } from './local-paint';
import { type Geometry, type PointerState, pointerStep, rounded } from './pointer';
import { drawCanvas } from './server';

// The packager's own rules for its boxes (package.ts), scoped to the canvas; the click area is not drawn here.
const CANVAS_CSS = `
.pc-ad .s{position:absolute;left:0;top:0;width:100%;height:100%}
.pc-ad .l{display:none}
.pc-ad .e{position:absolute;transform-origin:50% 50%;cursor:move}
.pc-ad .r{position:absolute;white-space:pre;line-height:1}
`;

/**
 * Geometry-free view of the size: what the server must draw again when it changes. Local changes (colour, order…)
 * are in it too: the server's drawing confirms them, from its cache when only order or visibility changed.
 */
function drawingKey(doc: EditorDocument, sizeIndex: number): string {
  const size = doc.sizes[sizeIndex];
  return JSON.stringify([doc.loop, size], (key, value) =>
    key === 'x' || key === 'y' || key === 'rotation' ? undefined : value,
  );
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

export function Canvas({
  doc,
  sizeIndex,
  selected,
  editable,
  zoom,
  onSelect,
  onGeometry,
  onDrawn,
}: {
  doc: EditorDocument;
  sizeIndex: number;
  selected: string | null;
  editable: boolean;
  zoom: number;
  onSelect(name: string | null): void;
  onGeometry(name: string, patch: Partial<Geometry>): void;
  onDrawn?(): void;
}) {
  const size = doc.sizes[sizeIndex];
  const key = drawingKey(doc, sizeIndex);
  const canvas = useQuery({
    queryKey: ['canvas', sizeIndex, key],
    queryFn: () => drawCanvas(doc, sizeIndex),
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
  const root = useRef<HTMLDivElement>(null);
  const [target, setTarget] = useState<HTMLElement | null>(null);
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
      box.style.transform = box.style.transform.replace(/rotate\([^)]*\)/, `rotate(${element.rotation ?? 0}deg)`);
    }
    const chosen = boxes.find((b) => b.dataset.elementName === selected) ?? null;
    setTarget(editable ? chosen : null);
    const others = boxes.filter((b) => b !== chosen);
    // Only a new set of boxes is a new state: setting an equal array would render again, and again.
    setGuides((previous) =>
      previous.length === others.length && previous.every((b, i) => b === others[i]) ? previous : others,
    );
    onDrawn?.();
  });

  const step = (event: Parameters<typeof pointerStep>[1]) => {
    const next = pointerStep(pointer.current, event);
    pointer.current = next.state;
    if (next.commit) onGeometry(next.commit.name, rounded(next.commit.patch));
  };
  const name = target?.dataset.elementName ?? '';
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
      <style>{CANVAS_CSS}</style>
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
          onSelect(box?.dataset.elementName ?? null);
        }}
      >
        <div ref={root} />
      </div>
      {target && (
        <Moveable
          target={target}
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
          onDragStart={() => step({ type: 'start', kind: 'translating', name })}
          onDrag={(e) => {
            e.target.style.left = `${e.left}px`;
            e.target.style.top = `${e.top}px`;
            step({ type: 'move', patch: { x: e.left, y: e.top } });
          }}
          onDragEnd={() => step({ type: 'end' })}
          onResizeStart={() => step({ type: 'start', kind: 'resizing', name })}
          onResize={(e) => {
            e.target.style.width = `${e.width}px`;
            e.target.style.height = `${e.height}px`;
            e.target.style.left = `${e.drag.left}px`;
            e.target.style.top = `${e.drag.top}px`;
            step({ type: 'move', patch: { width: e.width, height: e.height, x: e.drag.left, y: e.drag.top } });
          }}
          onResizeEnd={() => step({ type: 'end' })}
          onRotateStart={() => step({ type: 'start', kind: 'rotating', name })}
          onRotate={(e) => {
            e.target.style.transform = e.drag.transform;
            step({ type: 'move', patch: { rotation: e.rotation } });
          }}
          onRotateEnd={() => step({ type: 'end' })}
        />
      )}
    </div>
  );
}

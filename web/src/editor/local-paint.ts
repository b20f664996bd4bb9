// What the editor can show without the server, applied to the drawn markup in the frame of the change: visibility,
// opacity, drawing order and colours. Each is written where the HTML5 packager writes it (package.ts for the element
// box, elements/<kind>/html.ts for the colours), so the local value is the exported one; the server's drawing of the
// same document arrives after and says the same. Text, fonts and sizes are never guessed here: line breaks are the
// server's (issue 19).
import type { EditorElement } from './document';

type Painter = (box: HTMLElement, element: EditorElement) => void;

const str = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
const child = (node: Element | null | undefined, index: number) =>
  (node?.children[index] as HTMLElement | undefined) ?? null;

/** The text's box (text-html.ts textSpans): one div carrying the colour, its underlines painted in it too. */
function paintText(wrapper: HTMLElement | null, color: string) {
  if (!wrapper || wrapper.tagName !== 'DIV' || !wrapper.style.color) return;
  wrapper.style.color = color;
  for (const line of wrapper.children) if (line.tagName === 'DIV') (line as HTMLElement).style.background = color;
}

/** A stroke box (shape/html.ts strokeBox): a border of the stroke's colour. */
function paintStroke(box: HTMLElement | null, element: EditorElement) {
  const stroke = element.stroke as { color?: string } | undefined;
  if (box && stroke?.color && box.style.borderStyle === 'solid') box.style.borderColor = stroke.color;
}

const PAINTERS: Record<string, Painter> = {
  text: (box, element) => paintText(child(box, 0), str(element.color, '#000000')),
  shape: (box, element) => {
    const fill = child(box, 0);
    if (!fill) return;
    const stroke = element.stroke as { color?: string } | undefined;
    if (element.shape === 'line') {
      fill.style.background = stroke?.color ?? str(element.fill, '#000000');
      return;
    }
    fill.style.background = str(element.fill, '#000000');
    paintStroke(child(box, 1), element);
  },
  button: (box, element) => {
    const fill = child(box, 0);
    if (!fill) return;
    fill.style.background = str(element.fill, '#000000');
    if (element.stroke) paintStroke(child(box, 1), element);
    // The label's box is the last child; its text inside it.
    paintText(child(box.lastElementChild, 0), str(element.color, '#000000'));
  },
};

/** Applies the document's visibility, opacity, order and colours to the drawn boxes of one size. */
export function paintLocally(root: HTMLElement, elements: EditorElement[]): void {
  const byName = new Map(elements.map((e, i) => [e.name, { element: e, order: i }]));
  const slides = new Set<HTMLElement>();
  for (const box of root.querySelectorAll<HTMLElement>('[data-element-name]')) {
    const entry = byName.get(box.dataset.elementName ?? '');
    if (!entry) continue;
    const { element } = entry;
    if (box.parentElement) slides.add(box.parentElement);
    box.style.display = element.visible === false ? 'none' : '';
    // The box's opacity is the element's times its motion at the final frame: known here only without motion.
    const animations = element.animations as unknown[] | undefined;
    if (!animations?.length) box.style.opacity = String(typeof element.opacity === 'number' ? element.opacity : 1);
    PAINTERS[element.type]?.(box, element);
  }
  // Drawing order is document order: a slide's boxes are put back in it only when they are out of it.
  for (const slide of slides) {
    const boxes = [...slide.children].filter((b): b is HTMLElement => b instanceof HTMLElement);
    const rank = (b: HTMLElement) => byName.get(b.dataset.elementName ?? '')?.order ?? -1;
    const sorted = [...boxes].sort((a, b) => rank(a) - rank(b));
    if (sorted.every((b, i) => b === boxes[i])) continue;
    slide.append(...sorted);
  }
}

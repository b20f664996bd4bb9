// Preflight in the editor (issue 20): what the export would get wrong in the size being edited, checked by the server
// as the user edits (POST /v1/studio/preflight: the document is not saved yet, so the template's own preflight route
// would check the saved version). The elements with findings get an outline on the canvas and an aria-description
// naming what is wrong; a list beside the canvas names each finding with its element, and selects it on click.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../api';
import type { EditorDocument } from './document';

export interface Finding {
  code: string;
  severity: 'error' | 'warning' | 'info';
  sizeHash: string;
  sizeName: string;
  elementName: string | null;
  message: string;
  details: Record<string, unknown>;
}
interface PreflightBody {
  response: { findings: Finding[]; summary: { error: number; warning: number; info: number } };
}

/** The kinds the editor marks on the canvas (advice such as FONT_FALLBACK is listed, not marked). */
const MARKED = new Set(['error', 'warning']);

/** Human words for the codes (docs/preflight.md), for the marks' descriptions and the list. */
export const FINDING_LABELS: Record<string, string> = {
  TEXT_OVERFLOW: 'Text overflows its box',
  TEXT_SHRUNK: 'Text shrunk below a readable size',
  TEXT_TRUNCATED: 'Text cut by the ellipsis',
  MISSING_GLYPHS: 'Characters no font can draw',
  FONT_FALLBACK: 'Characters drawn by a fallback font',
  LOW_RESOLUTION_IMAGE: 'Low-resolution image',
  SOURCE_UNREACHABLE: 'Media cannot be fetched',
  SOURCE_REJECTED: 'Media is not usable',
  OUTSIDE_CANVAS: 'Outside the canvas',
  LOW_CONTRAST: 'Low contrast',
  HTML5_WEIGHT: 'HTML5 package too heavy',
};

export const labelOf = (finding: Finding) => FINDING_LABELS[finding.code] ?? finding.code;

/** The findings of one size of the document as it is now; the previous answer stays while the next is on its way. */
export function useDraftFindings(doc: EditorDocument, sizeIndex: number) {
  return useQuery({
    queryKey: ['studio-preflight', sizeIndex, JSON.stringify(doc.sizes[sizeIndex]), doc.sizes.length],
    queryFn: () => api<PreflightBody>('POST', '/v1/studio/preflight', { document: doc, sizeIndex }),
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
}

/**
 * Puts the marks on the canvas's element boxes: an outline, `data-finding` with the worst severity, and an
 * aria-description listing the findings. The canvas replaces its markup whenever the server draws it again, so the
 * marks are put back on every change of the canvas's DOM (a MutationObserver), not only when the findings change.
 */
export function FindingMarks({ findings }: { findings: Finding[] }) {
  useEffect(() => {
    const canvas = document.querySelector<HTMLElement>('[data-testid=canvas]');
    if (!canvas) return;
    const byElement = new Map<string, Finding[]>();
    for (const finding of findings) {
      if (!finding.elementName || !MARKED.has(finding.severity)) continue;
      byElement.set(finding.elementName, [...(byElement.get(finding.elementName) ?? []), finding]);
    }
    const apply = () => {
      observer.disconnect();
      for (const box of canvas.querySelectorAll<HTMLElement>('[data-element-name]')) {
        const own = byElement.get(box.dataset.elementName ?? '');
        if (!own) {
          if (box.dataset.finding) {
            delete box.dataset.finding;
            box.removeAttribute('aria-description');
            box.style.outline = '';
          }
          continue;
        }
        const worst = own.some((f) => f.severity === 'error') ? 'error' : 'warning';
        box.dataset.finding = worst;
        box.setAttribute('aria-description', own.map((f) => `${f.severity}: ${labelOf(f)}. ${f.message}`).join(' '));
        box.style.outline = `2px dashed ${worst === 'error' ? '#DC2626' : '#D97706'}`;
        box.style.outlineOffset = '1px';
      }
      observer.observe(canvas, { childList: true, subtree: true });
    };
    const observer = new MutationObserver(apply);
    apply();
    return () => observer.disconnect();
  }, [findings]);
  return null;
}

/** The list beside the canvas: every finding of the size, errors first, each naming its element. */
export function FindingsList({
  findings,
  checking,
  onSelect,
  label = 'Preflight findings',
}: {
  findings: Finding[];
  checking?: boolean;
  onSelect?(elementName: string): void;
  label?: string;
}) {
  return (
    <section aria-label={label} aria-busy={checking ?? false} className="findings">
      <h2>Preflight</h2>
      {findings.length === 0 ? (
        <p>{checking ? "Checking…" : "No findings: nothing overflows, every glyph draws."}</p>
      ) : (
        <ul aria-label={label}>
          {findings.map((f, i) => (
            <li key={`${f.code}-${f.sizeHash}-${f.elementName}-${i}`} data-severity={f.severity}>
              <strong>{f.severity}</strong>{' '}
              {f.elementName && onSelect ? (
                <button type="button" onClick={() => onSelect(f.elementName!)}>
                  {f.elementName}
                </button>
              ) : (
                <span>{f.elementName ?? f.sizeName}</span>
              )}
              : {labelOf(f)}. <span>{f.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

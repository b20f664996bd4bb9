// Embed code in an HTML5 package (SPEC §5): a sandboxed iframe, so the fragment's scripts run without reaching the
// ad's document, cookies or click handling (no allow-same-origin).
import type { HtmlContext } from '../../render/html-types.js';
import type { CodeElement } from './schema.js';

export function codeToHtml(element: CodeElement, hc: HtmlContext): string {
  const html = element.html ?? '';
  if (!html.trim()) return '';
  return `<iframe sandbox="allow-scripts" scrolling="no" srcdoc="${hc.escape(html)}" style="position:absolute;inset:0;width:100%;height:100%;border:0"></iframe>`;
}

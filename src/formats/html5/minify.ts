// minifyHtml with html-minifier-terser, leaving the click-tag script byte for byte as written: DV360 and GAM require
// it unminified, global and in <head> (adnetworks.md §5), and their validators read it literally.
import { minify } from 'html-minifier-terser';

export function minifyKeepingClickCode(html: string, clickScriptId: string): Promise<string> {
  return minify(html, {
    collapseWhitespace: true,
    conservativeCollapse: false,
    removeComments: true,
    minifyCSS: true,
    minifyJS: true,
    // The click script and the click area's javascript: URL are kept as fragments the minifier never touches.
    ignoreCustomFragments: [
      new RegExp(`<script id="${clickScriptId}"[^>]*>[\\s\\S]*?<\\/script>`),
      /<a id="click-area"[^>]*><\/a>/,
      /<a class="l"[^>]*><\/a>/,
    ],
  });
}

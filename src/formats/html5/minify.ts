// minifyHtml with html-minifier-terser, leaving the click-tag script byte for byte as written: DV360 and GAM require
// it unminified, global and in <head> (adnetworks.md §5), and their validators read it literally.
// The minifier (with terser and clean-css) is imported on first use: it is most of the cost of loading the format
// registry, which `placard render` and every render thread load for any format (issue 21).
export async function minifyKeepingClickCode(html: string, clickScriptId: string): Promise<string> {
  const { minify } = await import('html-minifier-terser');
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

// The public preview page of a share link (SPEC §7): the design playing live from its HTML5 package in a sandboxed
// iframe, a size switcher for sets (plain links: it works with scripting off) and a replay button (a few lines of
// plain JavaScript that reload the frame). No framework, nothing loaded from elsewhere.
import { escapeHtml } from '../formats/html5/text-html.js';

export interface SharePageSize {
  name: string;
  width: number;
  height: number;
}

export function sharePage(input: { title: string; token: string; sizes: SharePageSize[]; current: number }): string {
  const { token, sizes, current } = input;
  const size = sizes[current];
  const base = `/share/${encodeURIComponent(token)}`;
  const switcher =
    sizes.length > 1
      ? `<nav aria-label="Sizes">${sizes
          .map(
            (s, i) =>
              `<a href="${base}?size=${i}"${i === current ? ' aria-current="page"' : ''} data-size="${i}">${escapeHtml(s.name)} <span>${s.width}×${s.height}</span></a>`,
          )
          .join('')}</nav>`
      : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(input.title)} — preview</title>
<style>
body{margin:0;font:14px/1.4 system-ui,sans-serif;background:#F1F5F9;color:#0F172A}
header{display:flex;gap:12px;align-items:center;flex-wrap:wrap;padding:12px 16px;background:#FFF;border-bottom:1px solid #E2E8F0}
h1{font-size:16px;margin:0 auto 0 0}
nav{display:flex;gap:6px;flex-wrap:wrap}
nav a{padding:4px 10px;border:1px solid #CBD5E1;border-radius:6px;color:inherit;text-decoration:none}
nav a[aria-current]{background:#0F172A;color:#FFF;border-color:#0F172A}
nav span{opacity:.7}
button{padding:4px 12px;border-radius:6px;border:1px solid #0F172A;background:#FFF;cursor:pointer}
main{display:flex;justify-content:center;padding:32px 16px}
iframe{border:0;background:#FFF;box-shadow:0 1px 4px rgba(0,0,0,.15)}
</style>
</head>
<body>
<header>
<h1>${escapeHtml(input.title)}</h1>
${switcher}
<button type="button" id="replay">Replay</button>
</header>
<main>
<iframe id="ad" title="${escapeHtml(size.name)}" src="${base}/${current}/index.html" width="${size.width}" height="${size.height}" scrolling="no" sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe>
</main>
<script>
document.getElementById('replay').addEventListener('click', function () {
  var frame = document.getElementById('ad');
  frame.src = frame.getAttribute('src'); // assigning src navigates again, so the ad plays from its start
});
</script>
</body>
</html>
`;
}

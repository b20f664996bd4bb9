// The public preview page of a share link (SPEC §7): the design playing live from its HTML5 package in a sandboxed
// iframe, a size switcher for sets (plain links: it works with scripting off) and a replay button (a few lines of
// plain JavaScript that reload the frame). No framework, nothing loaded from elsewhere.
import { escapeHtml } from '../formats/html5/text-html.js';

export interface SharePageSize {
  /** The size hash comments are pinned to. */
  hash?: string;
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
main{display:flex;justify-content:center;gap:24px;flex-wrap:wrap;padding:32px 16px}
.stage{position:relative;align-self:flex-start}
.pin{position:absolute;width:18px;height:18px;margin:-9px 0 0 -9px;border-radius:50%;background:#F59E0B;color:#111;font:11px/18px system-ui;text-align:center;pointer-events:none}
aside{width:320px;background:#FFF;border:1px solid #E2E8F0;border-radius:8px;padding:12px}
aside h2{font-size:15px;margin:4px 0 8px}
aside label{display:block;margin:6px 0;font-size:12px}
aside input,aside textarea{display:block;width:100%;box-sizing:border-box;font:inherit}
aside ul{list-style:none;padding:0}
aside li{border-top:1px solid #E2E8F0;padding:6px 0}
.resolved{opacity:.6}
.meta{font-size:12px;opacity:.7}
[role=alert]{color:#B91C1C}
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
<div class="stage" id="stage" data-size-hash="${escapeHtml(size.hash ?? '')}">
<iframe id="ad" title="${escapeHtml(size.name)}" src="${base}/${current}/index.html" width="${size.width}" height="${size.height}" scrolling="no" sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe>
</div>
${reviewPanel(size)}
</main>
<script>
document.getElementById('replay').addEventListener('click', function () {
  var frame = document.getElementById('ad');
  frame.src = frame.getAttribute('src'); // assigning src navigates again, so the ad plays from its start
});
</script>
<script>${REVIEW_SCRIPT}</script>
</body>
</html>
`;
}

/** The review panel: comments pinned to a point of this size, replies, resolve, approve / request changes. */
function reviewPanel(size: SharePageSize): string {
  return `<aside aria-labelledby="review-title">
<h2 id="review-title">Review</h2>
<form id="comment-form" aria-label="New comment">
<label>Your name<input id="author" name="author" required maxlength="80" autocomplete="name"></label>
<label>Comment<textarea id="text" name="text" required maxlength="2000" rows="3"></textarea></label>
<label>Pin at X (px)<input id="x" name="x" type="number" min="0" max="${size.width}" value="${Math.round(size.width / 2)}"></label>
<label>Pin at Y (px)<input id="y" name="y" type="number" min="0" max="${size.height}" value="${Math.round(size.height / 2)}"></label>
<button type="submit">Post comment</button>
<p id="comment-error" role="alert"></p>
</form>
<div role="group" aria-label="Decision">
<button type="button" id="approve">Approve</button>
<button type="button" id="changes">Request changes</button>
</div>
<ul id="reviews" aria-label="Decisions"></ul>
<h2 id="threads-title">Comments</h2>
<ul id="threads" aria-labelledby="threads-title"></ul>
</aside>`;
}

// Plain JavaScript (the page loads nothing from elsewhere). Every text a reviewer wrote is set with textContent, so it
// is never interpreted as HTML; what was typed stays in its field until the server has accepted it.
const REVIEW_SCRIPT = `
(function () {
  var api = location.pathname.replace(/\\/$/, '');
  var stage = document.getElementById('stage');
  var sizeHash = stage.getAttribute('data-size-hash');
  var authorInput = document.getElementById('author');
  try { authorInput.value = localStorage.getItem('placard-review-author') || ''; } catch (e) {}
  function el(tag, text, cls) { var n = document.createElement(tag); if (text != null) n.textContent = text; if (cls) n.className = cls; return n; }
  function send(url, body) {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status)); return j; }); },
        function () { throw new Error('The server could not be reached; nothing was lost, try again.'); });
  }
  function author() {
    var name = authorInput.value.trim();
    try { localStorage.setItem('placard-review-author', name); } catch (e) {}
    return name;
  }
  function render(data) {
    var list = document.getElementById('threads');
    list.replaceChildren();
    Array.prototype.forEach.call(stage.querySelectorAll('.pin'), function (p) { p.remove(); });
    data.threads.forEach(function (t, i) {
      var li = el('li', null, t.resolved ? 'resolved' : '');
      li.setAttribute('aria-label', 'Comment by ' + t.author);
      li.appendChild(el('div', t.author + (t.resolved ? ' · resolved' : ''), 'meta'));
      li.appendChild(el('p', t.text));
      var replies = el('ul');
      t.replies.forEach(function (r) { var ri = el('li'); ri.appendChild(el('div', r.author, 'meta')); ri.appendChild(el('p', r.text)); replies.appendChild(ri); });
      li.appendChild(replies);
      var form = el('form');
      var label = el('label', 'Reply to ' + t.author);
      var input = el('textarea'); input.maxLength = 2000; input.rows = 2; input.required = true; label.appendChild(input);
      var error = el('p'); error.setAttribute('role', 'alert');
      form.appendChild(label); form.appendChild(el('button', 'Reply')); form.appendChild(error);
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        send(api + '/comments', { author: author(), text: input.value, parentId: t.id }).then(load, function (err) { error.textContent = err.message; });
      });
      li.appendChild(form);
      var resolve = el('button', t.resolved ? 'Reopen' : 'Resolve'); resolve.type = 'button';
      resolve.addEventListener('click', function () { send(api + '/comments/' + t.id + '/resolve', { resolved: !t.resolved }).then(load, function (err) { error.textContent = err.message; }); });
      li.appendChild(resolve);
      list.appendChild(li);
      if (t.position && t.position.sizeHash === sizeHash) {
        var pin = el('span', String(i + 1), 'pin'); pin.style.left = t.position.x + 'px'; pin.style.top = t.position.y + 'px';
        pin.setAttribute('aria-hidden', 'true'); stage.appendChild(pin);
      }
    });
    var reviews = document.getElementById('reviews');
    reviews.replaceChildren();
    data.reviews.forEach(function (r) { reviews.appendChild(el('li', r.author + (r.decision === 'approved' ? ' approved' : ' asked for changes') + (r.text ? ': ' + r.text : ''))); });
  }
  function load() { return fetch(api + '/comments').then(function (r) { return r.json(); }).then(function (j) { render(j.response); }); }
  var formError = document.getElementById('comment-error');
  document.getElementById('comment-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var text = document.getElementById('text');
    var body = { author: author(), text: text.value };
    if (sizeHash) body.position = { sizeHash: sizeHash, x: Number(document.getElementById('x').value) || 0, y: Number(document.getElementById('y').value) || 0 };
    send(api + '/comments', body).then(function () { text.value = ''; formError.textContent = ''; return load(); }, function (err) { formError.textContent = err.message; });
  });
  function decide(decision) {
    if (!authorInput.value.trim()) { formError.textContent = 'Give your name first.'; authorInput.focus(); return; }
    send(api + '/review', { author: author(), decision: decision }).then(load, function (err) { formError.textContent = err.message; });
  }
  document.getElementById('approve').addEventListener('click', function () { decide('approve'); });
  document.getElementById('changes').addEventListener('click', function () { decide('changes'); });
  load();
})();
`;

// File-hosting share links (SPEC §5 SOURCE, §11 brand kit assets). A SOURCE value may be the link a person copies
// from Google Drive, Dropbox or OneDrive: it opens a viewer page, so it is rewritten to the service's
// direct-download form. Brand kit assets accept only direct links and refuse every file-hosting link.

const DRIVE_HOSTS = new Set(['drive.google.com', 'docs.google.com', 'drive.usercontent.google.com']);
const DROPBOX_HOSTS = new Set([
  'dropbox.com',
  'www.dropbox.com',
  'dl.dropbox.com',
  'dl.dropboxusercontent.com',
  'dropboxusercontent.com',
]);
const ONEDRIVE_HOSTS = new Set(['1drv.ms', 'onedrive.live.com', 'api.onedrive.com']);

function host(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '');
}

function parse(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** Whether the URL points into Google Drive, Dropbox or OneDrive (SharePoint included), in any form. */
export function isFileHostingLink(raw: string): boolean {
  const url = parse(raw);
  if (!url) return false;
  const name = host(url);
  return (
    DRIVE_HOSTS.has(name) || DROPBOX_HOSTS.has(name) || ONEDRIVE_HOSTS.has(name) || name.endsWith('.sharepoint.com')
  );
}

/** The base64url "sharing token" of the OneDrive shares API: `u!` + base64url(url) without padding. */
function oneDriveShareToken(raw: string): string {
  return `u!${Buffer.from(raw, 'utf8').toString('base64url')}`;
}

/**
 * The direct-download form of a Google Drive, Dropbox or OneDrive share link; any other URL comes back unchanged.
 * - Drive `…/file/d/ID/view`, `…/open?id=ID`, `…/uc?id=ID` → `https://drive.google.com/uc?export=download&id=ID`
 * - Dropbox `www.dropbox.com/…?dl=0` (or without `dl`) → the same link with `dl=1` (other parameters such as
 *   `rlkey` are kept); `dl.dropboxusercontent.com` is already direct
 * - OneDrive `1drv.ms/…` → the shares API `https://api.onedrive.com/v1.0/shares/u!…/root/content`;
 *   `onedrive.live.com/redir|embed|view.aspx?resid=…` → `onedrive.live.com/download?resid=…`
 * - SharePoint (OneDrive for work) `…sharepoint.com/:i:/…` → the same link with `download=1`
 */
export function rewriteShareLink(raw: string): string {
  const url = parse(raw);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return raw;
  const name = host(url);

  if (name === 'drive.google.com' || name === 'docs.google.com') {
    const fromPath = /^\/file\/d\/([\w-]+)/.exec(url.pathname)?.[1];
    const fromQuery = ['/open', '/uc'].includes(url.pathname) ? url.searchParams.get('id') : null;
    const id = fromPath ?? fromQuery;
    if (id && /^[\w-]+$/.test(id)) return `https://drive.google.com/uc?export=download&id=${id}`;
    return raw;
  }

  if (name === 'dropbox.com' || name === 'www.dropbox.com') {
    if (!/^\/(s|scl\/fi)\//.test(url.pathname)) return raw;
    url.protocol = 'https:';
    url.searchParams.delete('raw');
    url.searchParams.set('dl', '1');
    return url.toString();
  }

  if (name === '1drv.ms') {
    return `https://api.onedrive.com/v1.0/shares/${oneDriveShareToken(url.toString())}/root/content`;
  }

  if (name === 'onedrive.live.com') {
    if (url.pathname === '/download') return raw;
    const resid = url.searchParams.get('resid');
    if (resid) {
      const direct = new URL('https://onedrive.live.com/download');
      for (const param of ['cid', 'resid', 'authkey']) {
        const value = url.searchParams.get(param);
        if (value) direct.searchParams.set(param, value);
      }
      return direct.toString();
    }
    return `https://api.onedrive.com/v1.0/shares/${oneDriveShareToken(url.toString())}/root/content`;
  }

  if (name.endsWith('.sharepoint.com') && /^\/:[a-z]:\//.test(url.pathname)) {
    url.searchParams.set('download', '1');
    return url.toString();
  }

  return raw;
}

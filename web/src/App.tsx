// The app frame: the invite page, the sign-in page, or the signed-in shell with its pages. A new page (the design
// editor of part 2) is one more case in `Page` and one more link in the nav.
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { api, setCsrfToken } from './api';
import { prefetchDocument } from './editor/server';
import { Designs } from './pages/Designs';
import { Invite } from './pages/Invite';
import { SignIn } from './pages/SignIn';
import { Team } from './pages/Team';
import { navigate, usePath } from './router';
import { canManage, canWrite, type SessionUser, useSession } from './session';

// The editor's code (and Moveable) loads only when a design is opened. Opened at an editor's address, its code and the
// design load beside the session check rather than after it (issue 19: an editable canvas within 1 s).
const EDIT_PATH = /^\/app\/designs\/([A-Za-z0-9]+)\/edit$/;
const loadEditor = () => import('./editor/Editor');
const opening = EDIT_PATH.exec(window.location.pathname);
if (opening) {
  void loadEditor();
  prefetchDocument(opening[1]);
}
const Editor = lazy(loadEditor);
const NewDesign = lazy(() => import('./editor/NewDesign'));

// Pages beyond the first view load on demand, keeping the first load within its budget.
const BrandKits = lazy(() => import('./pages/BrandKits'));
const Webhooks = lazy(() => import('./pages/Webhooks'));
const Batches = lazy(() => import('./pages/Batches'));

export function App() {
  const path = usePath();
  const session = useSession();
  if (path.startsWith('/invite/')) return <Invite token={path.slice('/invite/'.length)} />;
  if (session.isPending) return <p role="status">Loading…</p>;
  if (session.isError) return <p role="alert">{session.error.message}</p>;
  if (!session.data) return <SignIn />;
  return <Shell user={session.data} path={path} />;
}

function Shell({ user, path }: { user: SessionUser; path: string }) {
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const signOut = async (everywhere: boolean) => {
    try {
      await api('POST', everywhere ? '/v1/auth/logoutEverywhere' : '/v1/auth/logout');
      setCsrfToken(null);
      client.clear();
      client.setQueryData(['session'], null);
      navigate('/');
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div className="shell">
      <header className="topbar">
        <strong>Placard</strong>
        <nav aria-label="Main">
          <a href="/app/designs" onClick={link('/app/designs')} aria-current={path.startsWith('/app/designs') || path === '/' ? 'page' : undefined}>
            Designs
          </a>
          <a href="/app/brandkits" onClick={link('/app/brandkits')} aria-current={path.startsWith('/app/brandkits') ? 'page' : undefined}>
            Brand kits
          </a>
          <a href="/app/batches" onClick={link('/app/batches')} aria-current={path.startsWith('/app/batches') ? 'page' : undefined}>
            Batches
          </a>
          {canManage(user) && (
            <a href="/app/webhooks" onClick={link('/app/webhooks')} aria-current={path.startsWith('/app/webhooks') ? 'page' : undefined}>
              Webhooks
            </a>
          )}
          {canManage(user) && (
            <a href="/app/team" onClick={link('/app/team')} aria-current={path.startsWith('/app/team') ? 'page' : undefined}>
              Team
            </a>
          )}
        </nav>
        <span className="who">
          {user.name} · {user.role.name}
        </span>
        <button type="button" onClick={() => signOut(false)}>
          Sign out
        </button>
        <button type="button" onClick={() => signOut(true)}>
          Sign out everywhere
        </button>
      </header>
      {error && <p role="alert">{error}</p>}
      <main>
        <Suspense fallback={<p role="status">Loading…</p>}>{pageOf(path, user)}</Suspense>
      </main>
    </div>
  );
}

function pageOf(path: string, user: SessionUser) {
  const edit = EDIT_PATH.exec(path);
  if (edit) return <Editor key={edit[1]} hash={edit[1]} user={user} />;
  if (path === '/app/new' && canWrite(user)) return <NewDesign />;
  if (path.startsWith('/app/team') && canManage(user)) return <Team />;
  if (path.startsWith('/app/webhooks') && canManage(user)) return <Webhooks />;
  if (path.startsWith('/app/brandkits')) return <BrandKits user={user} />;
  if (path.startsWith('/app/batches')) return <Batches user={user} />;
  return <Designs user={user} />;
}

function link(to: string) {
  return (event: React.MouseEvent) => {
    event.preventDefault();
    navigate(to);
  };
}

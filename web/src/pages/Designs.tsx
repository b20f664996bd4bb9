// Browse: a project's folders and designs as a grid of thumbnails, with search and sort; Editors and above create
// folders and move designs, everyone can export and copy share links (as the API's roles allow).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useEffect, useState } from 'react';
import { api, type DesignNode, qs } from '../api';
import { navigate } from '../router';
import { canWrite, type SessionUser } from '../session';
import { CardSizes, DesignManage, FolderManage, NewProject } from './DesignManage';
import { ExportDialog } from './ExportDialog';

const RenderUrlBuilder = lazy(() => import('./RenderUrlBuilder'));

interface Project {
  id: number;
  name: string;
}
interface Folder {
  id: number;
  name: string;
}
interface ThreadNode {
  id: string;
  author: string;
  text: string;
  resolved: boolean;
  replies: { id: string; author: string; text: string }[];
}
interface ShareLink {
  shareLinkUrl: string;
  comments: { threads: ThreadNode[] };
}

/** Review comments from the share page, beside the design (text is rendered as text by React: never as HTML). */
function Comments({ name, threads }: { name: string; threads: ThreadNode[] }) {
  if (threads.length === 0) return <p>No review comments yet.</p>;
  return (
    <ul aria-label={`Review comments on ${name}`} className="comments">
      {threads.map((t) => (
        <li key={t.id}>
          <strong>{t.author}</strong>
          {t.resolved ? ' (resolved)' : ''}: {t.text}
          {t.replies.length > 0 && (
            <ul>
              {t.replies.map((r) => (
                <li key={r.id}>
                  <strong>{r.author}</strong>: {r.text}
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

export function Designs({ user }: { user: SessionUser }) {
  const client = useQueryClient();
  const writer = canWrite(user);
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: () => api<{ response: { nodes: Project[] } }>('GET', '/v1/projects?limit=100'),
  });
  const [projectId, setProjectId] = useState<number | null>(null);
  useEffect(() => {
    if (projectId === null && projects.data?.response.nodes[0]) setProjectId(projects.data.response.nodes[0].id);
  }, [projects.data, projectId]);
  const [folderId, setFolderId] = useState<number | null>(null);
  const [keyword, setKeyword] = useState('');
  const [order, setOrder] = useState('UPDATED_AT:DESC');
  const [orderBy, orderDirection] = order.split(':');
  const folders = useQuery({
    queryKey: ['folders', projectId],
    enabled: projectId !== null,
    queryFn: () => api<{ response: { folders: Folder[] } }>('GET', `/v1/folders${qs({ projectId })}`),
  });
  const designs = useQuery({
    queryKey: ['designs', projectId, folderId, keyword, order],
    enabled: projectId !== null,
    queryFn: () =>
      api<{ response: { nodes: DesignNode[]; totalCount: number } }>(
        'GET',
        `/v1/templates${qs({ projectId, folderId, keyword: keyword.trim(), orderBy, orderDirection, limit: 100 })}`,
      ),
  });
  const [error, setError] = useState<string | null>(null);
  const [folderName, setFolderName] = useState('');
  const createFolder = useMutation({
    mutationFn: (name: string) => api('POST', '/v1/folders', { projectId, name }),
    onSuccess: () => {
      setFolderName('');
      setError(null);
      client.invalidateQueries({ queryKey: ['folders'] });
    },
    onError: (e) => setError(e.message),
  });
  const move = useMutation({
    mutationFn: (v: { designHash: string; folderId: number }) => api('POST', '/v1/moveDesignToFolder', v),
    onSuccess: () => client.invalidateQueries({ queryKey: ['designs'] }),
    onError: (e) => setError(e.message),
  });
  const [exporting, setExporting] = useState<DesignNode | null>(null);
  const [renderUrlOf, setRenderUrlOf] = useState<DesignNode | null>(null);
  const [shareLinks, setShareLinks] = useState<Record<string, ShareLink>>({});
  const copyShareLink = async (design: DesignNode) => {
    try {
      const body = await api<{ response: ShareLink }>('GET', `/v1/shareLink/${design.id}`);
      setShareLinks((s) => ({ ...s, [design.id]: body.response }));
      await navigator.clipboard?.writeText(body.response.shareLinkUrl).catch(() => undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const onCreateFolder = (event: FormEvent) => {
    event.preventDefault();
    if (folderName.trim()) createFolder.mutate(folderName.trim());
  };

  return (
    <section aria-labelledby="designs-title">
      <h1 id="designs-title">Designs</h1>
      <div className="toolbar">
        <label>
          Project
          <select
            value={projectId ?? ''}
            onChange={(e) => {
              setProjectId(Number(e.target.value));
              setFolderId(null);
            }}
          >
            {projects.data?.response.nodes.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        {writer && (
          <NewProject
            onCreated={(id) => {
              setProjectId(id);
              setFolderId(null);
            }}
          />
        )}
        <label>
          Search designs
          <input type="search" value={keyword} onChange={(e) => setKeyword(e.target.value)} />
        </label>
        <label>
          Sort by
          <select value={order} onChange={(e) => setOrder(e.target.value)}>
            <option value="UPDATED_AT:DESC">Recently changed</option>
            <option value="NAME:ASC">Name A–Z</option>
            <option value="CREATED_AT:DESC">Newest</option>
          </select>
        </label>
      </div>
      {error && <p role="alert">{error}</p>}
      {writer && (
        <button type="button" onClick={() => navigate('/app/new')}>
          New design
        </button>
      )}
      <nav aria-label="Folders" className="folders">
        <button type="button" aria-pressed={folderId === null} onClick={() => setFolderId(null)}>
          All designs
        </button>
        {folders.data?.response.folders.map((f) => (
          <button type="button" key={f.id} aria-pressed={folderId === f.id} onClick={() => setFolderId(f.id)}>
            {f.name}
          </button>
        ))}
        {writer && (
          <form onSubmit={onCreateFolder} aria-label="New folder">
            <label>
              New folder name
              <input value={folderName} maxLength={200} onChange={(e) => setFolderName(e.target.value)} />
            </label>
            {/* A folder belongs to a project: not before the projects have loaded. */}
            <button type="submit" disabled={createFolder.isPending || projectId === null}>
              Create folder
            </button>
          </form>
        )}
      </nav>
      {writer &&
        folders.data?.response.folders
          .filter((f) => f.id === folderId)
          .map((f) => <FolderManage key={f.id} folder={f} onDeleted={() => setFolderId(null)} />)}
      {designs.isError && <p role="alert">{designs.error.message}</p>}
      {designs.isPending && projectId !== null && <p role="status">Loading designs…</p>}
      <ul className="grid" aria-label="Design grid">
        {designs.data?.response.nodes.map((d) => (
          <li key={d.id} className="card" aria-label={d.name}>
            <Thumb url={d.thumbUrl} />
            <h2>{d.name}</h2>
            <CardSizes designId={d.id} name={d.name} />
            <div className="actions">
              {/* Short visible words; the accessible names keep the design's name (a screen reader's button list
                  reads "Export Spring sale — Story", not five times "Export"). */}
              <button
                type="button"
                aria-label={`${writer ? 'Edit' : 'Open'} ${d.name}`}
                onClick={() => navigate(`/app/designs/${d.id}/edit`)}
              >
                {writer ? 'Edit' : 'Open'}
              </button>
              <button type="button" aria-label={`Export ${d.name}`} onClick={() => setExporting(d)}>
                Export
              </button>
              <button type="button" aria-label={`Render URL of ${d.name}`} onClick={() => setRenderUrlOf(d)}>
                Render URL
              </button>
              <button type="button" aria-label={`Copy share link of ${d.name}`} onClick={() => copyShareLink(d)}>
                Share
              </button>
              {shareLinks[d.id] && (
                <>
                  <label>
                    Share link
                    <input
                      readOnly
                      aria-label={`Share link of ${d.name}`}
                      value={shareLinks[d.id].shareLinkUrl}
                    />
                  </label>
                  <Comments name={d.name} threads={shareLinks[d.id].comments.threads} />
                </>
              )}
              {writer && <DesignManage design={d} />}
              {writer && (
                <label>
                  Move to folder
                  <select
                    aria-label={`Move ${d.name} to folder`}
                    value=""
                    onChange={(e) => move.mutate({ designHash: d.id, folderId: Number(e.target.value) })}
                  >
                    <option value="" disabled>
                      Choose…
                    </option>
                    <option value={-1}>Project root</option>
                    {folders.data?.response.folders.map((f) => (
                      <option key={f.id} value={f.id}>
                        {f.name}
                      </option>
                    ))}
                  </select>
                </label>
              )}
            </div>
          </li>
        ))}
      </ul>
      {designs.data && designs.data.response.nodes.length === 0 && <p>No designs here yet.</p>}
      {exporting && <ExportDialog design={exporting} onClose={() => setExporting(null)} />}
      {renderUrlOf && (
        <Suspense fallback={<p role="status">Loading…</p>}>
          <RenderUrlBuilder design={renderUrlOf} onClose={() => setRenderUrlOf(null)} />
        </Suspense>
      )}
    </section>
  );
}

/**
 * A design's thumbnail. A design whose thumbnail is still being drawn lists a link that answers 404 for a few seconds
 * (issue 15): the placeholder shows meanwhile and the picture is asked for again, a few times.
 */
function Thumb({ url }: { url: string | null }) {
  const [attempt, setAttempt] = useState(0);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!failed || attempt >= 10) return;
    const timer = setTimeout(() => {
      setFailed(false);
      setAttempt((n) => n + 1);
    }, 3000);
    return () => clearTimeout(timer);
  }, [failed, attempt]);
  if (!url || failed) return <div className="thumb" />;
  return <img key={attempt} src={url} alt="" width={200} height={150} loading="lazy" onError={() => setFailed(true)} />;
}

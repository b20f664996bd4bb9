// The export dialog: every type with the settings that apply to it, the sizes of a set, live progress while it
// renders (polling GET /v1/export/{id} through TanStack Query) and the download links when done. Before the user
// exports, the design's preflight findings for the chosen type and sizes (POST /v1/templates/{hash}/preflight).
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, type DesignNode } from '../api';
import { type Finding, FindingsList } from '../editor/findings';
import { RecentExports, rememberExport } from './RecentExports';

const TYPES = ['png', 'jpg', 'webp', 'pdf', 'gif', 'mp4', 'html'] as const;
type ExportType = (typeof TYPES)[number];

interface Creative {
  url?: string | null;
  zipUrl?: string | null;
  status: string;
  fileName?: string;
  creatives?: Creative[];
}
interface ExportBody {
  id: string;
  status: string;
  progress: number;
  creatives: Creative[];
  errorLog: { message: string } | null;
}
interface Size {
  hash: string;
  name: string;
  width: number;
  height: number;
}

export function ExportDialog({ design, onClose }: { design: DesignNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const sizes = useQuery({
    queryKey: ['sizes', design.id],
    queryFn: () => api<{ response: Size[] }>('GET', `/v1/templates/${design.id}/design-sizes`),
  });
  const networks = useQuery({
    queryKey: ['adnetworks-html'],
    queryFn: () => api<{ response: { id: number; name: string }[] }>('GET', '/v1/adnetworks/forHtml'),
  });
  const [type, setType] = useState<ExportType>('png');
  const [scale, setScale] = useState(1);
  const [quality, setQuality] = useState(90);
  const [fps, setFps] = useState(15);
  const [gifPreset, setGifPreset] = useState('highQuality');
  const [networkId, setNetworkId] = useState(1);
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [exportId, setExportId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const result = useQuery({
    queryKey: ['export', exportId],
    enabled: exportId !== null,
    queryFn: () => api<{ response: ExportBody }>('GET', `/v1/export/${exportId}`),
    refetchInterval: (query) => (finished(query.state.data?.response.status) ? false : 500),
  });

  const exportSettings: Record<string, unknown> = {};
  if (type !== 'html' && type !== 'pdf') exportSettings.scale = scale;
  if (type === 'jpg' || type === 'webp') exportSettings.quality = quality;
  if (type === 'gif' || type === 'mp4') exportSettings.targetFPS = fps;
  if (type === 'gif') exportSettings.gifPreset = gifPreset;
  if (type === 'html') exportSettings.networkId = networkId;
  if (chosen && sizes.data && chosen.length < sizes.data.response.length) exportSettings.allowedSizeHashesOnly = chosen;

  // What this export would get wrong, checked again whenever the type or a setting changes.
  const preflight = useQuery({
    queryKey: ['preflight', design.id, type, JSON.stringify(exportSettings)],
    enabled: !chosen || chosen.length > 0,
    queryFn: () =>
      api<{ response: { findings: Finding[] } }>('POST', `/v1/templates/${design.id}/preflight`, {
        type,
        exportSettings,
      }),
    retry: 1,
  });

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const body = await api<{ response: { export: ExportBody } }>('POST', '/v1/export', {
        creativeHash: design.id,
        type,
        exportSettings,
      });
      setExportId(body.response.export.id);
      rememberExport(design.id, body.response.export.id, type);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const done = result.data?.response;
  const files = done ? links(done.creatives) : [];
  const setSizes = sizes.data?.response ?? [];
  return (
    <dialog ref={ref} aria-labelledby="export-title" onClose={onClose} className="dialog">
      <h2 id="export-title">Export {design.name}</h2>
      <form onSubmit={start}>
        <label>
          File type
          <select value={type} onChange={(e) => setType(e.target.value as ExportType)}>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t === 'html' ? 'HTML5' : t.toUpperCase()}
              </option>
            ))}
          </select>
        </label>
        {type !== 'html' && type !== 'pdf' && (
          <label>
            Scale
            <input type="number" min={0.1} max={4} step={0.1} value={scale} onChange={(e) => setScale(Number(e.target.value))} />
          </label>
        )}
        {(type === 'jpg' || type === 'webp') && (
          <label>
            Quality
            <input type="number" min={1} max={100} value={quality} onChange={(e) => setQuality(Number(e.target.value))} />
          </label>
        )}
        {(type === 'gif' || type === 'mp4') && (
          <label>
            Frames per second
            <input type="number" min={1} max={60} value={fps} onChange={(e) => setFps(Number(e.target.value))} />
          </label>
        )}
        {type === 'gif' && (
          <label>
            GIF preset
            <select value={gifPreset} onChange={(e) => setGifPreset(e.target.value)}>
              {/* The API's values (src/formats/gif): highQuality is its default. */}
              <option value="highQuality">High quality</option>
              <option value="optimized">Optimized (smaller file)</option>
              <option value="static">Static (first frame)</option>
            </select>
          </label>
        )}
        {type === 'html' && (
          <label>
            Ad network
            <select value={networkId} onChange={(e) => setNetworkId(Number(e.target.value))}>
              {networks.data?.response.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {setSizes.length > 1 && (
          <fieldset>
            <legend>Sizes</legend>
            {setSizes.map((s) => (
              <label key={s.hash}>
                <input
                  type="checkbox"
                  checked={chosen ? chosen.includes(s.hash) : true}
                  onChange={(e) => {
                    const current = chosen ?? setSizes.map((x) => x.hash);
                    setChosen(e.target.checked ? [...current, s.hash] : current.filter((h) => h !== s.hash));
                  }}
                />
                {s.width}x{s.height}
              </label>
            ))}
          </fieldset>
        )}
        {preflight.isError && <p role="alert">Preflight could not run: {preflight.error.message}</p>}
        <FindingsList
          label="Findings before export"
          findings={preflight.data?.response.findings ?? []}
          checking={preflight.isFetching}
        />
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={exportId !== null && !finished(done?.status)}>
          Start export
        </button>
        <button type="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </form>
      {exportId && (
        <section aria-label="Export status">
          {result.isError && <p role="alert">{result.error.message}</p>}
          <progress aria-label="Export progress" max={1} value={done?.progress ?? 0} />
          <p role="status">Status: {done?.status ?? 'pending'}</p>
          {done?.errorLog && <p role="alert">{done.errorLog.message}</p>}
          <ul aria-label="Downloads">
            {files.map((f) => (
              <li key={f.url}>
                <a href={f.url} download>
                  Download {f.label}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <RecentExports designId={design.id} version={finished(done?.status) ? (exportId ?? null) : null} />
    </dialog>
  );
}

const FINAL = new Set(['complete', 'completeWithError', 'failed']);
const finished = (status: string | undefined) => status !== undefined && FINAL.has(status);

function links(creatives: Creative[]): { url: string; label: string }[] {
  const out: { url: string; label: string }[] = [];
  for (const c of creatives) {
    if (c.zipUrl) out.push({ url: c.zipUrl, label: 'all sizes (zip)' });
    if (c.url) out.push({ url: c.url, label: c.fileName ?? decodeURIComponent(new URL(c.url).pathname.split('/').pop() ?? 'file') });
    if (c.creatives) out.push(...links(c.creatives));
  }
  return out;
}

// Brand kits (issue 18): the team's kits, their fonts (listed, uploaded from disk with progress) and their assets
// (listed with their status, added by link). Lazy-loaded: it is not part of the first view's bundle.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, upload } from '../api';
import { canWrite, type SessionUser } from '../session';

interface Kit {
  id: number;
  name: string;
  assetCount: number;
}
interface Font {
  id: number;
  family: string;
  variant: string;
  format: string;
  fileName: string;
}
interface FailedFont {
  fileName: string;
  error: string;
}
interface Asset {
  id: number;
  name: string;
  type: string | null;
  status: 'PROCESSING' | 'VALID' | 'INVALID' | 'ERROR';
  url: string | null;
  width: number | null;
  height: number | null;
  error: string | null;
}

/** The API's own limits (MAX_FONT_BYTES, MAX_FONTS_PER_UPLOAD), checked here too so a wrong pick costs no upload. */
const MAX_FONT_BYTES = 10 * 1024 * 1024;
const MAX_FONTS_PER_UPLOAD = 20;

export default function BrandKits({ user }: { user: SessionUser }) {
  const client = useQueryClient();
  const writer = canWrite(user);
  const kits = useQuery({
    queryKey: ['brandkits'],
    queryFn: () => api<{ response: { nodes: Kit[] } }>('GET', '/v1/brandkits?limit=100'),
  });
  const [kitId, setKitId] = useState<number | null>(null);
  useEffect(() => {
    if (kitId === null && kits.data?.response.nodes[0]) setKitId(kits.data.response.nodes[0].id);
  }, [kits.data, kitId]);
  const [kitName, setKitName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => api<{ response: { brandKit: Kit } }>('POST', '/v1/brandkits/create', { name }),
    onSuccess: (body) => {
      setKitName('');
      setError(null);
      setKitId(body.response.brandKit.id);
      client.invalidateQueries({ queryKey: ['brandkits'] });
    },
    onError: (e) => setError(e.message),
  });
  const onCreate = (event: FormEvent) => {
    event.preventDefault();
    if (kitName.trim()) create.mutate(kitName.trim());
  };
  return (
    <section aria-labelledby="brandkits-title">
      <h1 id="brandkits-title">Brand kits</h1>
      <div className="toolbar">
        <label>
          Brand kit
          <select value={kitId ?? ''} onChange={(e) => setKitId(Number(e.target.value))}>
            {kits.data?.response.nodes.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
        {writer && (
          <form onSubmit={onCreate} aria-label="New brand kit">
            <label>
              New brand kit name
              <input value={kitName} maxLength={200} onChange={(e) => setKitName(e.target.value)} />
            </label>
            <button type="submit" disabled={create.isPending}>
              Create brand kit
            </button>
          </form>
        )}
      </div>
      {error && <p role="alert">{error}</p>}
      {kits.isError && <p role="alert">{kits.error.message}</p>}
      {kits.data && kits.data.response.nodes.length === 0 && <p>No brand kits yet.</p>}
      {kitId !== null && (
        <>
          <Fonts kitId={kitId} writer={writer} />
          <Assets kitId={kitId} writer={writer} />
        </>
      )}
    </section>
  );
}

function Fonts({ kitId, writer }: { kitId: number; writer: boolean }) {
  const client = useQueryClient();
  const fonts = useQuery({
    queryKey: ['brandkit-fonts', kitId],
    queryFn: () => api<{ response: { nodes: Font[] } }>('GET', `/v1/brandkit/${kitId}/fonts?limit=100`),
  });
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [stored, setStored] = useState<number | null>(null);
  const onUpload = async (event: FormEvent) => {
    event.preventDefault();
    const files = [...(input.current?.files ?? [])];
    setStored(null);
    if (files.length === 0) return setProblems(['Choose one or more font files first.']);
    if (files.length > MAX_FONTS_PER_UPLOAD) {
      return setProblems([`At most ${MAX_FONTS_PER_UPLOAD} font files at a time; ${files.length} were chosen.`]);
    }
    const tooLarge = files.filter((f) => f.size > MAX_FONT_BYTES);
    if (tooLarge.length > 0) {
      return setProblems(tooLarge.map((f) => `${f.name} is larger than the 10 MB a font file may have.`));
    }
    const form = new FormData();
    for (const file of files) form.append('file', file, file.name);
    setProblems([]);
    setProgress(0);
    try {
      const body = await upload<{ response: { fonts: (Font | FailedFont)[] } }>(
        `/v1/brandkit/${kitId}/fonts`,
        form,
        setProgress,
      );
      const failed = body.response.fonts.filter((f): f is FailedFont => 'error' in f);
      setProblems(failed.map((f) => `${f.fileName}: ${f.error}`));
      setStored(body.response.fonts.length - failed.length);
      if (failed.length === 0 && input.current) input.current.value = '';
      client.invalidateQueries({ queryKey: ['brandkit-fonts', kitId] });
    } catch (e) {
      setProblems([(e as Error).message]);
    } finally {
      setProgress(null);
    }
  };
  return (
    <section aria-labelledby="fonts-title">
      <h2 id="fonts-title">Fonts</h2>
      {fonts.isError && <p role="alert">{fonts.error.message}</p>}
      <ul aria-label="Brand fonts">
        {fonts.data?.response.nodes.map((f) => (
          <li key={f.id}>
            {f.family} {f.variant} ({f.format}, {f.fileName})
          </li>
        ))}
      </ul>
      {fonts.data && fonts.data.response.nodes.length === 0 && <p>No fonts in this kit yet.</p>}
      {writer && (
        <form onSubmit={onUpload} aria-label="Upload fonts">
          <label>
            Font files
            <input ref={input} type="file" multiple accept=".ttf,.otf,.woff,.woff2,.ttc,font/*" />
          </label>
          <button type="submit" disabled={progress !== null}>
            Upload fonts
          </button>
          {progress !== null && <progress aria-label="Font upload progress" max={1} value={progress} />}
          {stored !== null && <p role="status">{stored === 1 ? '1 font stored.' : `${stored} fonts stored.`}</p>}
          {problems.length > 0 && (
            <ul role="alert" aria-label="Font upload problems">
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
        </form>
      )}
    </section>
  );
}

function Assets({ kitId, writer }: { kitId: number; writer: boolean }) {
  const client = useQueryClient();
  const assets = useQuery({
    queryKey: ['brandkit-assets', kitId],
    queryFn: () => api<{ response: { nodes: Asset[] } }>('GET', `/v1/brandkit/${kitId}/assets?first=100`),
    // Links are fetched in the background: poll until every asset has settled.
    refetchInterval: (query) =>
      query.state.data?.response.nodes.some((a) => a.status === 'PROCESSING') ? 1000 : false,
  });
  const [link, setLink] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (source: string) => api('POST', '/v1/brandkit/uploadAssets', { brandkitId: kitId, sources: [source] }),
    onSuccess: () => {
      setLink('');
      setError(null);
      client.invalidateQueries({ queryKey: ['brandkit-assets', kitId] });
    },
    onError: (e) => setError(e.message),
  });
  const onAdd = (event: FormEvent) => {
    event.preventDefault();
    if (link.trim()) add.mutate(link.trim());
  };
  return (
    <section aria-labelledby="assets-title">
      <h2 id="assets-title">Assets</h2>
      {assets.isError && <p role="alert">{assets.error.message}</p>}
      <ul aria-label="Brand assets" className="grid">
        {assets.data?.response.nodes.map((a) => (
          <li key={a.id} aria-label={a.name} className="card">
            {a.status === 'VALID' && a.type === 'IMAGE' && a.url ? (
              <img src={a.url} alt="" width={120} height={90} loading="lazy" />
            ) : null}
            <strong>{a.name}</strong> <span>{statusText(a)}</span>
          </li>
        ))}
      </ul>
      {assets.data && assets.data.response.nodes.length === 0 && <p>No assets in this kit yet.</p>}
      {writer && (
        <form onSubmit={onAdd} aria-label="Add an asset by link">
          <label>
            Asset link
            <input type="url" value={link} maxLength={2048} onChange={(e) => setLink(e.target.value)} />
          </label>
          <button type="submit" disabled={add.isPending}>
            Add asset
          </button>
          {error && <p role="alert">{error}</p>}
        </form>
      )}
    </section>
  );
}

function statusText(a: Asset): string {
  if (a.status === 'PROCESSING') return 'Processing…';
  if (a.status === 'VALID') return a.width && a.height ? `Ready, ${a.width}×${a.height}` : 'Ready';
  return `Rejected: ${a.error ?? 'unknown reason'}`;
}

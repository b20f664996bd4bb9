// Brand kits (issue 18): the team's kits, their colours (edited and saved as the kit's palette), their fonts (listed,
// uploaded from disk with progress) and their assets (listed with their status, added by link or uploaded from disk
// with progress). Lazy-loaded: it is not part of the first view's bundle.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, upload } from '../api';
import { canWrite, type SessionUser } from '../session';

interface BrandColor {
  name: string;
  hex: string;
}
interface Kit {
  id: number;
  name: string;
  assetCount: number;
  colors: BrandColor[];
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
/** The API's limits of asset files (MAX_ASSET_FILES_PER_UPLOAD; the largest cap, video's 100 MB). */
const MAX_ASSET_FILES = 10;
const MAX_ASSET_BYTES = 100 * 1024 * 1024;

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
  const kit = kits.data?.response.nodes.find((k) => k.id === kitId);
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
          {kit && <Colors key={kit.id} kit={kit} writer={writer} />}
          <Fonts kitId={kitId} writer={writer} />
          <Assets kitId={kitId} writer={writer} />
        </>
      )}
    </section>
  );
}

/** The kit's palette: a swatch per colour; writers edit names and values and save the whole list at once. */
function Colors({ kit, writer }: { kit: Kit; writer: boolean }) {
  const client = useQueryClient();
  // Edits stay here until saved; a failed save keeps them (nothing typed is lost).
  const [colors, setColors] = useState<BrandColor[]>(kit.colors);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = useMutation({
    mutationFn: (next: BrandColor[]) =>
      api<{ response: { brandKit: Kit } }>('PUT', '/v1/brandkits', { brandkitId: kit.id, name: kit.name, colors: next }),
    onSuccess: (body) => {
      setColors(body.response.brandKit.colors);
      setMessage({ ok: true, text: 'Colours saved.' });
      client.invalidateQueries({ queryKey: ['brandkits'] });
    },
    onError: (e) => setMessage({ ok: false, text: e.message }),
  });
  const change = (index: number, patch: Partial<BrandColor>) =>
    setColors((list) => list.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  const onSave = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(colors);
  };
  if (!writer) {
    return (
      <section aria-labelledby="colors-title">
        <h2 id="colors-title">Colours</h2>
        <ul aria-label="Brand colours" className="swatches">
          {kit.colors.map((c) => (
            <li key={c.name}>
              <span className="swatch" style={{ background: c.hex }} aria-hidden="true" /> {c.name} {c.hex}
            </li>
          ))}
        </ul>
        {kit.colors.length === 0 && <p>No colours in this kit yet.</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="colors-title">
      <h2 id="colors-title">Colours</h2>
      <form onSubmit={onSave} aria-label="Brand colours">
        <ul className="swatches">
          {colors.map((c, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; a name can change or repeat while typed
            <li key={index}>
              <label>
                Colour {index + 1} name
                <input value={c.name} maxLength={100} required onChange={(e) => change(index, { name: e.target.value })} />
              </label>
              <label>
                Colour {index + 1} value
                <input type="color" value={c.hex} onChange={(e) => change(index, { hex: e.target.value })} />
              </label>
              <button
                type="button"
                aria-label={`Remove colour ${c.name || index + 1}`}
                onClick={() => setColors((list) => list.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        {colors.length === 0 && <p>No colours in this kit yet.</p>}
        <button
          type="button"
          disabled={colors.length >= 50}
          onClick={() => setColors((list) => [...list, { name: `Colour ${list.length + 1}`, hex: '#000000' }])}
        >
          Add colour
        </button>
        <button type="submit" disabled={save.isPending}>
          Save colours
        </button>
        {message && <p role={message.ok ? 'status' : 'alert'}>{message.text}</p>}
      </form>
    </section>
  );
}

function Fonts({ kitId, writer }: { kitId: number; writer: boolean }) {
  const client = useQueryClient();
  const fonts = useQuery({
    queryKey: ['brandkit-fonts', kitId],
    queryFn: () => api<{ response: { nodes: Font[] } }>('GET', `/v1/brandkit/${kitId}/fonts?limit=100`),
  });
  const send = async (form: FormData, onProgress: (fraction: number) => void) => {
    const body = await upload<{ response: { fonts: (Font | FailedFont)[] } }>(
      `/v1/brandkit/${kitId}/fonts`,
      form,
      onProgress,
    );
    const failed = body.response.fonts.filter((f): f is FailedFont => 'error' in f);
    client.invalidateQueries({ queryKey: ['brandkit-fonts', kitId] });
    return { stored: body.response.fonts.length - failed.length, problems: failed.map((f) => `${f.fileName}: ${f.error}`) };
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
        <FileUploadForm
          noun={['font', 'fonts']}
          title="Font"
          accept=".ttf,.otf,.woff,.woff2,.ttc,font/*"
          maxFiles={MAX_FONTS_PER_UPLOAD}
          maxBytes={MAX_FONT_BYTES}
          sizeRule="the 10 MB a font file may have"
          send={send}
        />
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
  const send = async (form: FormData, onProgress: (fraction: number) => void) => {
    const body = await upload<{ response: { assets: Asset[] } }>(`/v1/brandkit/${kitId}/assets`, form, onProgress);
    const failed = body.response.assets.filter((a) => a.status !== 'VALID');
    client.invalidateQueries({ queryKey: ['brandkit-assets', kitId] });
    client.invalidateQueries({ queryKey: ['brandkits'] });
    return {
      stored: body.response.assets.length - failed.length,
      problems: failed.map((a) => a.error ?? `${a.name}: rejected`),
    };
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
      {writer && (
        <FileUploadForm
          noun={['asset', 'assets']}
          title="Asset"
          accept="image/*,video/*,audio/*"
          maxFiles={MAX_ASSET_FILES}
          maxBytes={MAX_ASSET_BYTES}
          sizeRule="the 100 MB any asset may have"
          send={send}
        />
      )}
    </section>
  );
}

/**
 * Files chosen, checked against the service's limits before a byte is sent, uploaded with progress; what the
 * service refused is listed file by file. Fonts and assets differ only in their limits and their answer.
 */
function FileUploadForm({
  noun: [one, many],
  title,
  accept,
  maxFiles,
  maxBytes,
  sizeRule,
  send,
}: {
  noun: [string, string];
  title: string;
  accept: string;
  maxFiles: number;
  maxBytes: number;
  sizeRule: string;
  send(form: FormData, onProgress: (fraction: number) => void): Promise<{ stored: number; problems: string[] }>;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [stored, setStored] = useState<number | null>(null);
  const onUpload = async (event: FormEvent) => {
    event.preventDefault();
    const files = [...(input.current?.files ?? [])];
    setStored(null);
    if (files.length === 0) return setProblems([`Choose one or more ${one} files first.`]);
    if (files.length > maxFiles) {
      return setProblems([`At most ${maxFiles} ${one} files at a time; ${files.length} were chosen.`]);
    }
    const tooLarge = files.filter((f) => f.size > maxBytes);
    if (tooLarge.length > 0) return setProblems(tooLarge.map((f) => `${f.name} is larger than ${sizeRule}.`));
    const form = new FormData();
    for (const file of files) form.append('file', file, file.name);
    setProblems([]);
    setProgress(0);
    try {
      const answer = await send(form, setProgress);
      setProblems(answer.problems);
      setStored(answer.stored);
      if (answer.problems.length === 0 && input.current) input.current.value = '';
    } catch (e) {
      setProblems([(e as Error).message]);
    } finally {
      setProgress(null);
    }
  };
  return (
    <form onSubmit={onUpload} aria-label={`Upload ${many}`}>
      <label>
        {title} files
        <input ref={input} type="file" multiple accept={accept} />
      </label>
      <button type="submit" disabled={progress !== null}>
        Upload {many}
      </button>
      {progress !== null && <progress aria-label={`${title} upload progress`} max={1} value={progress} />}
      {stored !== null && <p role="status">{stored === 1 ? `1 ${one} stored.` : `${stored} ${many} stored.`}</p>}
      {problems.length > 0 && (
        <ul role="alert" aria-label={`${title} upload problems`}>
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </form>
  );
}

function statusText(a: Asset): string {
  if (a.status === 'PROCESSING') return 'Processing…';
  if (a.status === 'VALID') return a.width && a.height ? `Ready, ${a.width}×${a.height}` : 'Ready';
  return `Rejected: ${a.error ?? 'unknown reason'}`;
}

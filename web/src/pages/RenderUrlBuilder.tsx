// The render URL builder (issue 23, docs/render-urls.md): pick element values, a format and a size, and the API signs
// the link for the caller's team (POST /v1/renderUrls) — the secret never reaches the browser. Loaded lazily: most
// visits to the designs grid never open it.
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, type DesignNode } from '../api';

const FORMATS = ['png', 'jpg', 'webp', 'avif'] as const;
// The attribute a link's `name=value` form changes, in the order the service picks it (docs/render-urls.md).
const MAIN_ATTRIBUTES = ['LABEL', 'SOURCE', 'CODE'] as const;

interface EditableElement {
  name: string;
  layerType: string;
  value: string | null;
  attributes: string[];
}
interface Size {
  hash: string;
  name: string;
  width: number;
  height: number;
}
interface SignedUrl {
  url: string;
  expiresAt: string | null;
}

function mainAttribute(element: EditableElement): string | undefined {
  return MAIN_ATTRIBUTES.find((a) => element.attributes.includes(a));
}

export default function RenderUrlBuilder({ design, onClose }: { design: DesignNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const elements = useQuery({
    queryKey: ['elements', design.id],
    queryFn: () => api<{ response: EditableElement[] }>('GET', `/v1/templates/${design.id}/elements`),
  });
  const sizes = useQuery({
    queryKey: ['sizes', design.id],
    queryFn: () => api<{ response: Size[] }>('GET', `/v1/templates/${design.id}/design-sizes`),
  });
  const [values, setValues] = useState<Record<string, string>>({});
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('png');
  const [size, setSize] = useState('');
  const [signed, setSigned] = useState<SignedUrl | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [copied, setCopied] = useState(false);

  // An element appears once even when a set repeats it in every size (changes apply to every size by name).
  const editable: EditableElement[] = [];
  for (const e of elements.data?.response ?? []) {
    if (mainAttribute(e) && !editable.some((x) => x.name === e.name)) editable.push(e);
  }
  const setSizes = sizes.data?.response ?? [];

  const build = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setCopied(false);
    setPending(true);
    // Only the values the user changed go into the link: an unchanged element keeps following the design.
    const elementsChanges = editable.flatMap((e) => {
      const value = values[e.name];
      const attribute = mainAttribute(e);
      if (value === undefined || value === (e.value ?? '') || !attribute) return [];
      return [{ elementName: e.name, changes: [{ attribute, value }] }];
    });
    try {
      const body = await api<{ response: SignedUrl }>('POST', '/v1/renderUrls', {
        templateHash: design.id,
        format,
        ...(size ? { size } : {}),
        ...(elementsChanges.length > 0 ? { elementsChanges } : {}),
      });
      // The API answers a link on the public URL; shown as is, since that is what gets pasted elsewhere.
      setSigned(body.response);
    } catch (e) {
      setSigned(null);
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  };

  const copy = async () => {
    if (!signed) return;
    try {
      await navigator.clipboard.writeText(signed.url);
      setCopied(true);
    } catch {
      setError('The browser refused the clipboard: select the link and copy it by hand.');
    }
  };

  return (
    <dialog ref={ref} aria-labelledby="render-url-title" onClose={onClose} className="dialog">
      <h2 id="render-url-title">Render URL of {design.name}</h2>
      {elements.isError && <p role="alert">{elements.error.message}</p>}
      {elements.isPending && <p role="status">Loading elements…</p>}
      <form onSubmit={build} aria-label="Render URL settings">
        {editable.map((e) => {
          // An explicit for/id: a control inside its <label> would add its own value to the accessible name.
          const id = `render-url-${design.id}-${e.name}`;
          const value = values[e.name] ?? e.value ?? '';
          const onChange = (v: string) => setValues((all) => ({ ...all, [e.name]: v }));
          return (
            <div key={e.name} className="field">
              <label htmlFor={id}>{e.name}</label>
              {e.layerType === 'text' || e.layerType === 'button' ? (
                <textarea id={id} rows={2} maxLength={10000} value={value} onChange={(ev) => onChange(ev.target.value)} />
              ) : (
                <input id={id} maxLength={65536} value={value} onChange={(ev) => onChange(ev.target.value)} />
              )}
            </div>
          );
        })}
        <label>
          Image format
          <select value={format} onChange={(e) => setFormat(e.target.value as (typeof FORMATS)[number])}>
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {f.toUpperCase()}
              </option>
            ))}
          </select>
        </label>
        {setSizes.length > 1 && (
          <label>
            Size
            <select value={size} onChange={(e) => setSize(e.target.value)}>
              <option value="">First size ({`${setSizes[0].width}×${setSizes[0].height}`})</option>
              {setSizes.map((s) => (
                <option key={s.hash} value={s.hash}>
                  {s.name} ({s.width}×{s.height})
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit" disabled={pending || elements.isPending}>
          {pending ? 'Signing…' : 'Get signed link'}
        </button>
      </form>
      {error && <p role="alert">{error}</p>}
      {signed && (
        <div className="render-url">
          <label>
            Signed link
            <input readOnly value={signed.url} onFocus={(e) => e.target.select()} />
          </label>
          <button type="button" onClick={copy}>
            Copy link
          </button>
          {copied && <p role="status">Link copied.</p>}
          {signed.expiresAt && <p>Expires {new Date(signed.expiresAt).toLocaleString()}.</p>}
          <img src={signed.url} alt={`Preview of the render URL of ${design.name}`} className="render-url-preview" />
        </div>
      )}
      <button type="button" onClick={() => ref.current?.close()}>
        Close
      </button>
    </dialog>
  );
}

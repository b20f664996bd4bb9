// Pickers of the properties panel (issue 19): the font family from the catalogue (GET /v1/fonts: the bundled families
// and the team's brand fonts), its variant (GET /v1/templates/fontVariants), and an image source chosen from the brand
// kits' images or uploaded from disk into a brand kit (POST /v1/brandkit/{id}/assets, with progress).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, upload } from '../api';

export interface BrandAsset {
  id: number;
  name: string;
  type: string | null;
  status: string;
  src: string;
  url: string | null;
  error?: string | null;
}

/**
 * The value a SOURCE takes for a brand kit asset: its source link when it has one (stable), else its signed link
 * (files uploaded from disk have no source link; the signed one expires, see docs/decisions.md).
 */
export function sourceOf(asset: BrandAsset): string {
  return /^https?:\/\//i.test(asset.src) ? asset.src : (asset.url ?? asset.src);
}

interface Family {
  fontFamily: string;
  variants: string[];
  team?: true;
}

export function FontPicker({ id, value, onChange }: { id: string; value: string; onChange(value: string): void }) {
  const fonts = useQuery({
    queryKey: ['fonts'],
    queryFn: () => api<{ response: Family[] }>('GET', '/v1/fonts'),
    staleTime: 60_000,
  });
  const families = fonts.data?.response ?? [];
  const known = families.some((f) => f.fontFamily === value);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {/* A family the catalogue does not list (typed by an API client) stays selectable: nothing is lost. */}
      {!known && <option value={value}>{value}</option>}
      {families.map((f) => (
        <option key={f.fontFamily} value={f.fontFamily}>
          {f.team ? `${f.fontFamily} (brand font)` : f.fontFamily}
        </option>
      ))}
    </select>
  );
}

export function VariantPicker({
  id,
  family,
  value,
  onChange,
}: {
  id: string;
  family: string;
  value: string;
  onChange(value: string | undefined): void;
}) {
  const variants = useQuery({
    queryKey: ['fontVariants', family],
    queryFn: () =>
      api<{ response: { fontFamily: string; variants: string[] }[] }>(
        'GET',
        `/v1/templates/fontVariants?fontFamily=${encodeURIComponent(family)}`,
      ),
    staleTime: 60_000,
    retry: false,
  });
  const list = variants.data?.response[0]?.variants ?? [];
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}>
      <option value="">Default</option>
      {value !== '' && !list.includes(value) && <option value={value}>{value}</option>}
      {list.map((v) => (
        <option key={v} value={v}>
          {variantName(v)}
        </option>
      ))}
    </select>
  );
}

const WEIGHTS: Record<string, string> = {
  '100': 'Thin',
  '200': 'Extra light',
  '300': 'Light',
  '400': 'Regular',
  '500': 'Medium',
  '600': 'Semibold',
  '700': 'Bold',
  '800': 'Extra bold',
  '900': 'Black',
};

/** "700italic" → "Bold italic (700italic)": the words a designer knows, and the value the API takes. */
function variantName(variant: string): string {
  const match = /^(\d{3})(italic)?$/.exec(variant);
  if (!match) return variant;
  return `${WEIGHTS[match[1]] ?? match[1]}${match[2] ? ' italic' : ''} (${variant})`;
}

/** The VALID images of every brand kit of the team, and the kits (to upload into). */
export function useBrandKitImages() {
  return useQuery({
    queryKey: ['brand-kit-images'],
    queryFn: async () => {
      const kits = await api<{ response: { nodes: { id: number; name: string }[] } }>('GET', '/v1/brandkits?limit=100');
      const lists = await Promise.all(
        kits.response.nodes.map((kit) =>
          api<{ response: { nodes: BrandAsset[] } }>('GET', `/v1/brandkit/${kit.id}/assets?first=100`),
        ),
      );
      return {
        kits: kits.response.nodes,
        images: lists.flatMap((l) => l.response.nodes).filter((a) => a.status === 'VALID' && a.type === 'IMAGE'),
      };
    },
  });
}

/** An image element's source: a link typed by hand, a brand kit image, or a file uploaded into a brand kit. */
export function ImageSourcePicker({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange(value: string | undefined): void;
}) {
  const client = useQueryClient();
  const images = useBrandKitImages();
  const input = useRef<HTMLInputElement>(null);
  const [kitId, setKitId] = useState<number | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const kits = images.data?.kits ?? [];
  const targetKit = kitId ?? kits[0]?.id ?? null;
  const onUpload = async () => {
    const file = input.current?.files?.[0];
    if (!file || targetKit === null) return;
    const form = new FormData();
    form.append('file', file, file.name);
    setProblem(null);
    setProgress(0);
    try {
      const body = await upload<{ response: { assets: BrandAsset[] } }>(
        `/v1/brandkit/${targetKit}/assets`,
        form,
        setProgress,
      );
      const [asset] = body.response.assets;
      if (asset.status !== 'VALID' || asset.type !== 'IMAGE') {
        setProblem(asset.error ?? `${file.name} is not an image`);
      } else {
        onChange(sourceOf(asset));
        if (input.current) input.current.value = '';
      }
      client.invalidateQueries({ queryKey: ['brand-kit-images'] });
      client.invalidateQueries({ queryKey: ['brandkit-assets', targetKit] });
    } catch (e) {
      setProblem((e as Error).message);
    } finally {
      setProgress(null);
    }
  };
  const chosen = images.data?.images.find((a) => sourceOf(a) === value);
  return (
    <>
      <input id={id} type="url" value={value} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />
      <label>
        Brand kit image
        <select
          value={chosen ? String(chosen.id) : ''}
          onChange={(e) => {
            const asset = images.data?.images.find((a) => String(a.id) === e.target.value);
            if (asset) onChange(sourceOf(asset));
          }}
        >
          <option value="">{images.isPending ? 'Loading…' : 'Choose…'}</option>
          {images.data?.images.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {kits.length > 1 && (
        <label>
          Upload into brand kit
          <select value={targetKit ?? ''} onChange={(e) => setKitId(Number(e.target.value))}>
            {kits.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {kits.length > 0 && (
        <label>
          Upload image
          <input ref={input} type="file" accept="image/*" onChange={onUpload} disabled={progress !== null} />
        </label>
      )}
      {progress !== null && <progress aria-label="Image upload progress" max={1} value={progress} />}
      {problem && <p role="alert">{problem}</p>}
    </>
  );
}

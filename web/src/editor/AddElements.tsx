// Adding elements: text, shape, button, and an image chosen from the team's brand kit assets.
import { useState } from 'react';
import { addElement, type EditorDocument, type EditorElement, freeName } from './document';
import { type BrandAsset, sourceOf, useBrandKitImages } from './pickers';

export function AddElements({
  doc,
  sizeIndex,
  change,
  select,
}: {
  doc: EditorDocument;
  sizeIndex: number;
  change(next: EditorDocument): void;
  select(name: string): void;
}) {
  const size = doc.sizes[sizeIndex];
  const [picking, setPicking] = useState(false);
  const add = (base: string, element: Omit<EditorElement, 'name'>) => {
    const name = freeName(doc, sizeIndex, base);
    change(addElement(doc, sizeIndex, { ...element, name } as EditorElement));
    select(name);
  };
  const box = (w: number, h: number) => ({
    x: Math.round((size.width - Math.min(w, size.width)) / 2),
    y: Math.round((size.height - Math.min(h, size.height)) / 2),
    width: Math.min(w, size.width),
    height: Math.min(h, size.height),
  });
  return (
    <div className="add">
      <h3>Add</h3>
      <button type="button" onClick={() => add('text', { type: 'text', ...box(200, 40), text: 'Your text', fontSize: 24 })}>
        Add text
      </button>
      <button type="button" onClick={() => add('shape', { type: 'shape', ...box(100, 100), shape: 'rect', fill: '#CBD5E1' })}>
        Add shape
      </button>
      <button
        type="button"
        onClick={() => add('button', { type: 'button', ...box(140, 44), label: 'Click', fill: '#2563EB', color: '#FFFFFF' })}
      >
        Add button
      </button>
      <button type="button" aria-expanded={picking} onClick={() => setPicking((p) => !p)}>
        Add image
      </button>
      {picking && (
        <AssetPicker
          onPick={(asset) => {
            add('image', { type: 'image', ...box(200, 150), src: sourceOf(asset), fit: 'cover' });
            setPicking(false);
          }}
        />
      )}
    </div>
  );
}

function AssetPicker({ onPick }: { onPick(asset: BrandAsset): void }) {
  const assets = useBrandKitImages();
  return (
    <div role="group" aria-label="Brand kit images">
      {assets.isPending && <p role="status">Loading the brand kit…</p>}
      {assets.isError && <p role="alert">{assets.error.message}</p>}
      {assets.data?.images.length === 0 && <p>No images in the brand kits yet.</p>}
      {assets.data?.images.map((asset) => (
        <button type="button" key={asset.id} onClick={() => onPick(asset)}>
          Use {asset.name}
        </button>
      ))}
    </div>
  );
}

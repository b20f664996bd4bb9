// The sizes of the set: choose the one on the canvas; add one from the standard sizes list (a copy of the current
// size's elements, placed as they are), duplicate or remove one.
import { STANDARD_SIZES } from '../../../src/domain/standard-sizes';
import type { EditorDocument } from './document';

export function SizesPanel({
  doc,
  sizeIndex,
  editable,
  onSize,
  change,
}: {
  doc: EditorDocument;
  sizeIndex: number;
  editable: boolean;
  onSize(index: number): void;
  change(next: EditorDocument): void;
}) {
  const current = doc.sizes[sizeIndex];
  const add = (width: number, height: number, name: string) => {
    const { hash: _hash, ...copy } = current;
    change({ ...doc, sizes: [...doc.sizes, { ...copy, name, width, height }] });
    onSize(doc.sizes.length);
  };
  return (
    <div className="sizes">
      <label>
        Size
        <select value={sizeIndex} onChange={(e) => onSize(Number(e.target.value))}>
          {doc.sizes.map((s, i) => (
            <option key={`${s.name}-${i}`} value={i}>
              {s.name} ({s.width}x{s.height})
            </option>
          ))}
        </select>
      </label>
      {editable && (
        <>
          <label>
            Add a standard size
            <select
              value=""
              onChange={(e) => {
                const size = STANDARD_SIZES[Number(e.target.value)];
                if (size) add(size.width, size.height, size.name);
              }}
            >
              <option value="" disabled>
                Choose…
              </option>
              {STANDARD_SIZES.map((s, i) => (
                <option key={`${s.width}x${s.height}`} value={i}>
                  {s.name} ({s.width}x{s.height})
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => add(current.width, current.height, `${current.name} copy`)}>
            Duplicate size
          </button>
          <button
            type="button"
            disabled={doc.sizes.length < 2}
            onClick={() => {
              change({ ...doc, sizes: doc.sizes.filter((_, i) => i !== sizeIndex) });
              onSize(0);
            }}
          >
            Remove size
          </button>
        </>
      )}
    </div>
  );
}

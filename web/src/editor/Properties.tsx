// The properties panel: one labelled control per attribute of the selected element's kind (fields.ts). Values go to
// the document as typed; the server's validation answers on the canvas draw and on save.
import { Animations } from './Animations';
import type { EditorElement } from './document';
import { DEFAULTS, FIELDS, type Field } from './fields';
import { FontPicker, ImageSourcePicker, VariantPicker } from './pickers';

function shown(element: EditorElement, field: Field): unknown {
  return element[field.key] ?? DEFAULTS[field.key] ?? (field.control === 'number' ? 0 : '');
}

export function Properties({
  element,
  editable,
  onChange,
}: {
  element: EditorElement;
  editable: boolean;
  onChange(key: string, value: unknown): void;
}) {
  const fields = FIELDS[element.type] ?? [];
  return (
    <form aria-label={`Properties of ${element.name}`} className="properties" onSubmit={(e) => e.preventDefault()}>
      <p>
        <strong>{element.name}</strong> · {element.type}
      </p>
      <fieldset disabled={!editable}>
        {fields.map((field) => {
          const value = shown(element, field);
          // Labels point at their control by id: a control nested in its label would put its value in its name.
          const id = `prop-${field.key}`;
          switch (field.control) {
            case 'number':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <input
                    id={id}
                    type="number"
                    value={Number(value)}
                    min={field.min}
                    max={field.max}
                    step={field.step ?? 1}
                    onChange={(e) => {
                      if (e.target.value !== '' && Number.isFinite(e.target.valueAsNumber)) {
                        onChange(field.key, e.target.valueAsNumber);
                      }
                    }}
                  />
                </div>
              );
            case 'checkbox':
              return (
                <label key={field.key} className="check">
                  <input
                    type="checkbox"
                    checked={Boolean(value)}
                    onChange={(e) => onChange(field.key, e.target.checked)}
                  />
                  {field.label}
                </label>
              );
            case 'color':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <input
                    id={id}
                    type="color"
                    value={normalColour(String(value))}
                    onChange={(e) => onChange(field.key, e.target.value.toUpperCase())}
                  />
                </div>
              );
            case 'select':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <select id={id} value={String(value)} onChange={(e) => onChange(field.key, e.target.value)}>
                    {field.options.map((o) => (
                      <option key={o}>{o}</option>
                    ))}
                  </select>
                </div>
              );
            case 'font':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <FontPicker id={id} value={String(value)} onChange={(v) => onChange(field.key, v)} />
                </div>
              );
            case 'fontVariant':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <VariantPicker
                    id={id}
                    family={String(element.fontFamily ?? DEFAULTS.fontFamily)}
                    value={String(element[field.key] ?? '')}
                    onChange={(v) => onChange(field.key, v)}
                  />
                </div>
              );
            case 'image':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <ImageSourcePicker id={id} value={String(value)} onChange={(v) => onChange(field.key, v)} />
                </div>
              );
            case 'textarea':
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <textarea id={id} rows={3} value={String(value)} onChange={(e) => onChange(field.key, e.target.value)} />
                </div>
              );
            default:
              return (
                <div key={field.key} className="field">
                  <label htmlFor={id}>{field.label}</label>
                  <input
                    id={id}
                    type={field.control === 'url' ? 'url' : 'text'}
                    value={String(value)}
                    onChange={(e) => onChange(field.key, e.target.value === '' ? undefined : e.target.value)}
                  />
                </div>
              );
          }
        })}
      </fieldset>
      <Animations
        animations={Array.isArray(element.animations) ? element.animations : []}
        editable={editable}
        onChange={(next) => onChange('animations', next)}
      />
    </form>
  );
}

/** <input type="color"> takes #rrggbb only: #RGB is widened, anything else shows black. */
function normalColour(value: string): string {
  if (/^#[0-9a-f]{6}$/i.test(value)) return value.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(value)) return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
  return '#000000';
}

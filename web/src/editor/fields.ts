// The properties panel's controls, per element kind: one labelled control per attribute the editor offers. The panel
// renders this list; the server validates every value (a rejected one shows its message and changes nothing saved).
export type Field =
  | { key: string; label: string; control: 'number'; min?: number; max?: number; step?: number }
  | { key: string; label: string; control: 'text' | 'textarea' | 'color' | 'checkbox' | 'url' }
  // Pickers (pickers.tsx): the font catalogue, the family's variants, an image from the brand kits or uploaded.
  | { key: string; label: string; control: 'font' | 'fontVariant' | 'image' }
  | { key: string; label: string; control: 'select'; options: string[] };

const GEOMETRY: Field[] = [
  { key: 'x', label: 'X', control: 'number' },
  { key: 'y', label: 'Y', control: 'number' },
  { key: 'width', label: 'Width', control: 'number', min: 0 },
  { key: 'height', label: 'Height', control: 'number', min: 0 },
  { key: 'rotation', label: 'Rotation', control: 'number', min: -360, max: 360 },
  { key: 'opacity', label: 'Opacity', control: 'number', min: 0, max: 1, step: 0.05 },
  { key: 'visible', label: 'Visible', control: 'checkbox' },
  { key: 'link', label: 'Link', control: 'url' },
];

const TEXT_STYLE: Field[] = [
  { key: 'fontFamily', label: 'Font', control: 'font' },
  { key: 'fontVariant', label: 'Font variant', control: 'fontVariant' },
  { key: 'fontSize', label: 'Font size', control: 'number', min: 1, max: 2000 },
  { key: 'color', label: 'Text colour', control: 'color' },
  { key: 'align', label: 'Alignment', control: 'select', options: ['start', 'left', 'center', 'right', 'justify', 'end'] },
  { key: 'verticalAlign', label: 'Vertical alignment', control: 'select', options: ['top', 'middle', 'bottom'] },
  { key: 'lineHeight', label: 'Line height', control: 'number', min: 0.5, max: 5, step: 0.05 },
  { key: 'letterSpacing', label: 'Letter spacing', control: 'number', min: -50, max: 200 },
  { key: 'autoFit', label: 'Auto-fit', control: 'select', options: ['none', 'shrink'] },
  { key: 'minFontSize', label: 'Minimum font size', control: 'number', min: 1 },
];

export const FIELDS: Record<string, Field[]> = {
  text: [
    { key: 'text', label: 'Text', control: 'textarea' },
    { key: 'markdown', label: 'Markdown', control: 'checkbox' },
    ...TEXT_STYLE,
    ...GEOMETRY,
  ],
  button: [
    { key: 'label', label: 'Label', control: 'text' },
    { key: 'fill', label: 'Button colour', control: 'color' },
    { key: 'cornerRadius', label: 'Corner radius', control: 'number', min: 0 },
    ...TEXT_STYLE,
    ...GEOMETRY,
  ],
  shape: [
    { key: 'shape', label: 'Shape', control: 'select', options: ['rect', 'ellipse', 'line'] },
    { key: 'fill', label: 'Fill colour', control: 'color' },
    { key: 'cornerRadius', label: 'Corner radius', control: 'number', min: 0 },
    ...GEOMETRY,
  ],
  image: [
    { key: 'src', label: 'Image source', control: 'image' },
    { key: 'fit', label: 'Fit', control: 'select', options: ['cover', 'contain', 'fill'] },
    { key: 'focalX', label: 'Focal point X', control: 'number', min: 0, max: 1, step: 0.05 },
    { key: 'focalY', label: 'Focal point Y', control: 'number', min: 0, max: 1, step: 0.05 },
    { key: 'cornerRadius', label: 'Corner radius', control: 'number', min: 0 },
    ...GEOMETRY,
  ],
  svg: [{ key: 'src', label: 'SVG source', control: 'textarea' }, ...GEOMETRY],
  video: [{ key: 'src', label: 'Video source', control: 'url' }, ...GEOMETRY],
  audio: [{ key: 'src', label: 'Audio source', control: 'url' }, ...GEOMETRY],
  code: [{ key: 'html', label: 'Embed code', control: 'textarea' }, ...GEOMETRY],
};

/** Defaults the panel shows for attributes the document leaves out (the schema's defaults). */
export const DEFAULTS: Record<string, unknown> = {
  rotation: 0,
  opacity: 1,
  visible: true,
  fontFamily: 'Inter',
  fontSize: 16,
  color: '#000000',
  align: 'start',
  verticalAlign: 'top',
  lineHeight: 1.2,
  letterSpacing: 0,
  autoFit: 'none',
  minFontSize: 6,
  markdown: false,
  fill: '#000000',
  cornerRadius: 0,
  fit: 'cover',
  focalX: 0.5,
  focalY: 0.5,
};

// Element changes (SPEC §5) and the hashes that name designs and sizes: the body of exports, share links and
// preflight. They live below http/ so that services and jobs take them from here; http/schemas re-exports them.
import { type Static, Type } from 'typebox';
import { CHANGE_ATTRIBUTES } from '../elements/element-kind.js';

const HASH_RULE = 'must be 7 lowercase letters or digits';

/** A design (template, creative) hash: 7 lowercase alphanumerics, random and unique across the service. */
export const DesignHash = Type.String({
  pattern: '^[a-z0-9]{7}$',
  'x-rule': HASH_RULE,
  description: 'Design hash: 7 lowercase letters or digits',
});

/** The hash of one size inside a design set; same form as a design hash. */
export const SizeHash = Type.String({
  pattern: '^[a-z0-9]{7}$',
  'x-rule': HASH_RULE,
  description: 'Size hash (from GET /v1/templates/{templateHash}/design-sizes): 7 lowercase letters or digits',
});

export const HexColour = Type.String({
  pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
  'x-rule': 'must be a hex colour such as #FFF or #FFFFFF',
  description: 'Hex colour: `#` followed by 3 or 6 characters from 0-9, a-f, A-F',
});

// ---- element changes (SPEC §5), shared by exports and share links ----

/** One list for the domain and the HTTP layer: the registry's. */
export const ELEMENT_CHANGE_ATTRIBUTES = CHANGE_ATTRIBUTES;

export const ElementChangeAttribute = Type.Enum([...ELEMENT_CHANGE_ATTRIBUTES], {
  description: 'What to change; which element types accept which attribute is in SPEC §5',
});

export const ElementChange = Type.Object(
  {
    attribute: ElementChangeAttribute,
    value: Type.String({
      maxLength: 65536,
      description:
        'The new value, always a string. Its rule depends on the attribute (LABEL up to 10,000 characters, CODE up to ' +
        '64 KiB, VISIBILITY `true` or `false`, TEXTCOLOR/BGCOLOR hex, LINEHEIGHT 0.5..5, LETTERSPACING -50..200 px, …); ' +
        'a value that breaks it is a 422 INVALID_ELEMENT_CHANGE',
    }),
  },
  { additionalProperties: false },
);

export const ElementChanges = Type.Object(
  {
    elementName: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Name of the element; the change applies to it in every size of the set that has it',
    }),
    changes: Type.Array(ElementChange, { maxItems: 50, description: 'Applied in order; at most 50' }),
  },
  { additionalProperties: false },
);

export const ElementsChanges = Type.Array(ElementChanges, {
  maxItems: 500,
  description: 'Changes of named elements, applied in request order; at most 500 entries',
});

export const GeneralChanges = Type.Object(
  { backgroundColor: Type.Optional(HexColour) },
  { additionalProperties: false, description: "Changes of the whole design; backgroundColor sets every size's" },
);

export type ElementChange = Static<typeof ElementChange>;
export type ElementsChanges = Static<typeof ElementsChanges>;
export type GeneralChanges = Static<typeof GeneralChanges>;

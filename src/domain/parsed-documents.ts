// Stored design documents, parsed once per text and shared read-only (issue 21: the exports of one revision carry the
// same text; a thousand variants of a template would otherwise parse it a thousand times). Keyed by the text itself:
// a row this process wrote holds the very string, so a hit usually compares one pointer. What is shared is frozen, so
// a change on the way to a render fails loudly instead of leaking into the next export.
import { LRUCache } from 'lru-cache';

export interface ParsedDocumentsOptions {
  /** Most texts kept. Default 64. */
  max?: number;
  /** Most characters of text kept, summed over the entries. Default 64 Mi. */
  maxChars?: number;
}

export interface ParsedDocuments<T> {
  /** What `parse` made of this text, frozen; parsed now if it is not kept. */
  get(text: string): T;
}

export function createParsedDocuments<T>(
  parse: (text: string) => T,
  options: ParsedDocumentsOptions = {},
): ParsedDocuments<T> {
  const kept = new LRUCache<string, { value: T }>({
    max: options.max ?? 64,
    maxSize: options.maxChars ?? 64 * 1024 * 1024,
    sizeCalculation: (_entry, text) => Math.max(1, text.length),
  });
  return {
    get(text) {
      let entry = kept.get(text);
      if (!entry) {
        entry = { value: deepFreeze(parse(text)) };
        kept.set(text, entry);
      }
      return entry.value;
    },
  };
}

/** Freezes a parsed JSON value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

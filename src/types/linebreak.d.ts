// linebreak ships no types; this is the part of its API the line breaker uses.
declare module 'linebreak' {
  export default class LineBreaker {
    constructor(text: string);
    /** The next break opportunity (`position` is the UTF-16 offset a line may start at), or null at the end. */
    nextBreak(): { position: number; required: boolean } | null;
  }
}

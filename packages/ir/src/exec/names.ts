/**
 * Turns IR names (which may contain dots or clash) into unique JS identifiers.
 * Generated helper names all start with `$`, which sanitised IR names never contain.
 */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "yield let static implements interface package private protected public await async of " +
    "arguments eval undefined NaN Infinity Math Object Array Number Boolean String Symbol Error " +
    "fround imul globalThis"
  ).split(" "),
);

export class NameAllocator {
  private readonly used = new Set<string>();
  /** The suffix to try first for each base: a function with hundreds of `$loop`s or `$i0`s asks for the same base again and again. */
  private readonly nextSuffix = new Map<string, number>();

  /** `base`, or `base_1`, `base_2`, … whichever is unused first (the order the names always had). */
  private unused(base: string): string {
    if (!this.used.has(base)) return base;
    let n = this.nextSuffix.get(base) ?? 1;
    while (this.used.has(`${base}_${n}`)) n++;
    this.nextSuffix.set(base, n + 1);
    return `${base}_${n}`;
  }

  /** A fresh identifier derived from `hint`, never returned before by this allocator. */
  fresh(hint: string): string {
    let base = hint.replace(/[^A-Za-z0-9_]/g, "_");
    if (base === "" || /^[0-9]/.test(base)) base = `_${base}`;
    if (RESERVED.has(base)) base = `${base}_`;
    const name = this.unused(base);
    this.used.add(name);
    return name;
  }

  /** A fresh internal name (`$` prefix: cannot clash with names from the IR). */
  internal(hint: string): string {
    const name = this.unused(`$${hint}`);
    this.used.add(name);
    return name;
  }
}

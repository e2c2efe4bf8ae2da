/**
 * Scoped naming of variables and buffers for printing.
 *
 * IR objects are identified by identity; their names are only hints. A name is taken while the
 * scope that defined it is open, so two distinct objects alive at once with the same hint print
 * as `x` and `x_1`, while sibling scopes (e.g. three consecutive `for i` loops) may reuse `i`,
 * exactly as TVM's printer does.
 */

/** Words that cannot be used as Python identifiers, plus the names the script itself relies on. */
const RESERVED = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
  "T",
  "I",
  "range",
]);

/** Turns a hint into a Python identifier: other characters become `_` (`threadIdx.x` → `threadIdx_x`). */
export function sanitizeIdentifier(hint: string, fallback: string): string {
  let name = hint.replace(/[^A-Za-z0-9_]/g, "_");
  if (name === "") name = fallback;
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return name;
}

export class NameTable {
  /** What each defined object prints as: an identifier, or an alias expression such as `A.data`. */
  private readonly docs = new Map<object, string>();
  private readonly taken = new Set<string>();
  /** Objects defined by each open scope, innermost last. */
  private readonly scopes: object[][] = [[]];

  has(obj: object): boolean {
    return this.docs.has(obj);
  }

  get(obj: object): string | undefined {
    return this.docs.get(obj);
  }

  /** Defines `obj` in the innermost scope under a fresh identifier derived from `hint`. */
  define(obj: object, hint: string, fallback = "v"): string {
    const existing = this.docs.get(obj);
    if (existing !== undefined) return existing;
    const base = sanitizeIdentifier(hint, fallback);
    let name = base;
    for (let i = 1; this.taken.has(name) || RESERVED.has(name); i++) name = `${base}_${i}`;
    this.taken.add(name);
    this.docs.set(obj, name);
    this.currentScope().push(obj);
    return name;
  }

  /** Runs `body` with the outermost scope current (for objects the IR uses without declaring them). */
  atRoot<T>(body: () => T): T {
    const saved = this.scopes.splice(1);
    try {
      return body();
    } finally {
      this.scopes.push(...saved);
    }
  }

  /** Makes `obj` print as `text` (e.g. a buffer's data pointer as `A.data`) without taking a name. */
  alias(obj: object, text: string): void {
    if (this.docs.has(obj)) return;
    this.docs.set(obj, text);
    this.currentScope().push(obj);
  }

  /** Runs `body` in a new scope; names defined inside are released afterwards. */
  scoped<T>(body: () => T): T {
    this.scopes.push([]);
    try {
      return body();
    } finally {
      for (const obj of this.scopes.pop()!) {
        this.taken.delete(this.docs.get(obj)!);
        this.docs.delete(obj);
      }
    }
  }

  private currentScope(): object[] {
    return this.scopes[this.scopes.length - 1]!;
  }
}

/**
 * What a name means while a function body is being built: a variable, a buffer, a handle
 * parameter, or a plain number (a module-level constant such as `M = 2048`).
 */
import type { Buffer } from "../buffer.js";
import type { Var } from "../expr.js";
import type { Range } from "../stmt.js";
import type { PyExpr, PyStmt } from "./ast.js";
import type { ExprValue } from "./literal.js";

export type Binding =
  /** Loop variables carry their range so that `T.axis.remap` can take the iterator domain from it. */
  | { readonly kind: "var"; readonly var: Var; readonly loopRange?: Range | undefined }
  | { readonly kind: "buffer"; readonly buffer: Buffer }
  /** A `T.handle` parameter, to be given a buffer by `T.match_buffer`. */
  | { readonly kind: "handle"; readonly var: Var }
  | { readonly kind: "number"; readonly value: number; readonly isFloat: boolean }
  /** A string given from outside the script (a Python closure variable such as `dtype = "float16"`). */
  | { readonly kind: "string"; readonly value: string }
  /** A TVMScript expression given from outside the script (`one = T.float32(1)`), evaluated where it is used. */
  | { readonly kind: "expr"; readonly text: string; readonly node: PyExpr }
  /** A parameter of a closure lambda, bound to the value of its argument. */
  | { readonly kind: "value"; readonly value: ExprValue }
  /** A `@T.inline` / `@T.macro` function given from outside the script: its statements are inlined where it is called. */
  | { readonly kind: "macro"; readonly def: Extract<PyStmt, { kind: "FunctionDef" }> }
  /** A closure macro whose text does not parse: an error only where the script calls it. */
  | { readonly kind: "broken macro"; readonly problem: string };

/** Nested lexical scopes; inner definitions shadow outer ones and vanish when the scope closes. */
export class ScopeStack {
  private readonly frames: Map<string, Binding>[] = [new Map()];

  push(): void {
    this.frames.push(new Map());
  }

  pop(): void {
    if (this.frames.length > 1) this.frames.pop();
  }

  /** Runs `f` in a fresh inner scope. */
  within<T>(f: () => T): T {
    this.push();
    try {
      return f();
    } finally {
      this.pop();
    }
  }

  /**
   * Runs `f` in a fresh scope that sees only the outermost one (the closure and the function's
   * top-level names): a hygienic macro body, which must not see the caller's loop variables.
   */
  hygienic<T>(f: () => T): T {
    const hidden = this.frames.splice(1);
    this.push();
    try {
      return f();
    } finally {
      this.frames.splice(1, this.frames.length - 1, ...hidden);
    }
  }

  define(name: string, binding: Binding): void {
    this.frames[this.frames.length - 1]!.set(name, binding);
  }

  /** Defines in the outermost (function-level) scope, e.g. a symbolic shape variable. */
  defineGlobal(name: string, binding: Binding): void {
    this.frames[0]!.set(name, binding);
  }

  /** The binding of `name` in the innermost scope only (for duplicate definitions). */
  lookupInnermost(name: string): Binding | undefined {
    return this.frames[this.frames.length - 1]!.get(name);
  }

  lookup(name: string): Binding | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const b = this.frames[i]!.get(name);
      if (b !== undefined) return b;
    }
    return undefined;
  }

  /** The visible buffer whose storage pointer is `data`, innermost first (for `T.evaluate(f(A.data))`). */
  bufferOfData(data: Var): Buffer | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      for (const b of this.frames[i]!.values()) if (b.kind === "buffer" && b.buffer.data === data) return b.buffer;
    }
    return undefined;
  }

  /** Names visible now, for "did you mean" hints. */
  visibleNames(): string[] {
    const names = new Set<string>();
    for (const f of this.frames) for (const n of f.keys()) names.add(n);
    return [...names];
  }
}

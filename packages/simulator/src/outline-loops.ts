/**
 * Loops without a barrier (or a warp-collective ldmatrix / mma or an mbarrier wait, which yield too), taken out of the thread's generator function into plain functions.
 *
 * A simulated thread is a generator (it yields at each barrier), and V8 optimises the loops of a
 * generator function much less well than those of an ordinary function: on the course's 2048³
 * gemm, the same loops ran about twice as fast once outside. So each outermost `For` whose body
 * holds no barrier becomes a function `$loopN(...)` next to the generator, called where the loop
 * stood with the names it uses (loop variables, lets, arrays, layout constants of the enclosing
 * code). Nothing else changes: the names are unique in the generated code, the loop runs to its
 * end without yielding, so no other thread runs meanwhile.
 *
 * That also lets `local` allocations inside such a loop reuse one array per allocation site (see
 * `scratchArray`): the allocation lives only while the loop runs, and only one thread runs it at
 * a time; it is poisoned at every entry, as a fresh allocation is.
 */
import { type Call, type For, MBARRIER_WAIT_PARITY, type Stmt, forEachStmt } from "@tessera/ir";
import type { EmitContext } from "@tessera/ir/executor-kit";
import { isCollectiveMmaCall } from "./mma/emit-mma.js";

/** The generated functions' helper that poisons an array and returns it. */
export const POISON_HELPER = "function $poisoned(a, v) { for (let i = 0; i < a.length; i++) a[i] = v; return a; }";

export class LoopOutliner {
  private readonly functions: string[] = [];
  private readonly scratch: string[] = [];
  private inside = false;

  /**
   * @param extraNames names of the generator the loops may use besides those the context tracks
   *   (e.g. its asynchronous copy queue)
   */
  constructor(private readonly extraNames: readonly string[]) {}

  /** The `EmitHooks.loop` hook. */
  readonly loop = (ctx: EmitContext, loop: For, emitInPlace: () => void): void => {
    if (this.inside || containsBarrier(loop)) return emitInPlace();
    const visible = ctx.visibleNames();
    for (const name of this.extraNames) visible.add(name);
    this.inside = true;
    let code: ReturnType<EmitContext["captured"]>;
    try {
      code = ctx.captured(emitInPlace);
    } finally {
      this.inside = false;
    }
    const params = usedIdentifiers(code.lines).filter((id) => visible.has(id));
    const name = ctx.names.internal("loop");
    this.functions.push(
      [`function ${name}(${params.join(", ")}) {`, ...(code.temps.length > 0 ? [`  let ${code.temps.join(", ")};`] : []), ...code.lines, "}"].join("\n"),
    );
    ctx.line(`${name}(${params.join(", ")});`);
  };

  /** Whether code is being emitted into an outlined loop now. */
  get outlining(): boolean {
    return this.inside;
  }

  /**
   * A module-level array of `length` elements of `ctor` for one `local` allocation site of an
   * outlined loop, as a JS expression that poisons it with `poison` first.
   */
  scratchArray(ctx: EmitContext, ctor: string, length: number, poison: string): string {
    const name = ctx.names.internal("scratch");
    this.scratch.push(`const ${name} = new ${ctor}(${length});`);
    return `$poisoned(${name}, ${poison})`;
  }

  /** Declarations to place before the generator: the scratch arrays and the outlined loops. */
  declarations(): string[] {
    return [...this.scratch, ...this.functions];
  }
}

function containsBarrier(stmt: Stmt): boolean {
  let found = false;
  forEachStmt(stmt, (s) => {
    if (found) return false;
    if (
      s.kind === "Evaluate" &&
      s.value.kind === "Call" &&
      ((s.value as Call).op === "tvm_storage_sync" || (s.value as Call).op === MBARRIER_WAIT_PARITY || isCollectiveMmaCall(s.value as Call))
    )
      found = true;
    return !found;
  });
  return found;
}

/**
 * Identifiers the JS `lines` use outside strings and comments, except property names (after a
 * `.`), in order of first use. The generated code has no template or regular-expression literals.
 */
export function usedIdentifiers(lines: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const line of lines) {
    let i = 0;
    while (i < line.length) {
      const c = line[i]!;
      if (c === '"' || c === "'") {
        i++;
        while (i < line.length && line[i] !== c) i += line[i] === "\\" ? 2 : 1;
        i++;
      } else if (c === "/" && line[i + 1] === "/") {
        break;
      } else if (/[A-Za-z_$]/.test(c)) {
        let j = i + 1;
        while (j < line.length && /[\w$]/.test(line[j]!)) j++;
        if (!isPropertyName(line, i)) seen.add(line.slice(i, j));
        i = j;
      } else if (/\d/.test(c)) {
        // A number literal (1e-5, 0x1f): its letters are not identifiers.
        while (i < line.length && /[\w.]/.test(line[i]!)) i++;
      } else {
        i++;
      }
    }
  }
  return [...seen];
}

function isPropertyName(line: string, start: number): boolean {
  let k = start - 1;
  while (k >= 0 && line[k] === " ") k--;
  return k >= 0 && line[k] === "." && !(k >= 2 && line.slice(k - 2, k + 1) === "...");
}

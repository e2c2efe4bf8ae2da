/**
 * Loops taken out of a generated function into functions of their own (`EmitHooks.loop`).
 *
 * V8 optimises one large generated function badly: it compiles the whole function on stack
 * replacement (OSR) once its first loop is hot, then deoptimises it each time execution reaches
 * code that has not run yet (the next loop nest of a schedule: "insufficient type feedback"), and
 * compiles it again, whole, every time. On the 128³ corpus gemms one such recompilation took
 * seconds. A loop in a function of its own is compiled, and deoptimised, on its own. So each `For`
 * becomes a function `$loopN(...)` placed beside the generated function and called where the loop
 * stood with the names it uses (loop variables, lets, arrays, layout constants of the enclosing
 * code). Nothing else changes: the generated names are unique, and the loop still runs to its end
 * before the code after it.
 *
 * That also lets an allocation inside an outlined loop reuse one array per allocation site
 * (`scratchArray`): the allocation lives only while one instance of its scope runs, and the
 * caller refills it at every entry, as a fresh allocation would be.
 */
import type { For } from "../stmt.js";
import type { EmitContext } from "./context.js";

export interface LoopOutlinerOptions {
  /** Names of the enclosing function the loops may use besides those the context tracks (e.g. its copy queue). */
  readonly extraNames?: readonly string[];
  /** Loops to leave in place (e.g. those that hold a barrier, where the simulator's generator yields). */
  readonly keepInPlace?: (loop: For) => boolean;
  /** Outline the loops inside an outlined loop too, each into its own function (default true). */
  readonly nested?: boolean;
}

export class LoopOutliner {
  private readonly functions: string[] = [];
  private readonly scratch: string[] = [];
  private depth = 0;

  constructor(private readonly options: LoopOutlinerOptions = {}) {}

  /** The `EmitHooks.loop` hook. */
  readonly loop = (ctx: EmitContext, loop: For, emitInPlace: () => void): void => {
    if ((this.depth > 0 && this.options.nested === false) || this.options.keepInPlace?.(loop) === true) return emitInPlace();
    const visible = ctx.visibleNames();
    for (const name of this.options.extraNames ?? []) visible.add(name);
    this.depth++;
    let code: ReturnType<EmitContext["captured"]>;
    try {
      code = ctx.captured(emitInPlace);
    } finally {
      this.depth--;
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
    return this.depth > 0;
  }

  /**
   * The name of a module-level array `new ctor(length)` for one allocation site inside an outlined
   * loop; the caller fills it at every entry of the allocation's scope.
   */
  scratchArray(ctx: EmitContext, ctor: string, length: number): string {
    const name = ctx.names.internal("scratch");
    this.scratch.push(`const ${name} = new ${ctor}(${length});`);
    return name;
  }

  /** Declarations to place before the generated function: the scratch arrays and the outlined loops. */
  declarations(): string[] {
    return [...this.scratch, ...this.functions];
  }
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

/**
 * The value of a storage size emitted as a constant JS expression (digits, `+`, `-`, `*` and
 * parentheses, as `storageSize` writes it for constant shapes), or undefined when it names
 * anything or is not a non-negative safe integer.
 */
export function constantStorageSize(size: string): number | undefined {
  if (!/^[\d\s()+*-]+$/.test(size)) return undefined;
  let value: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- digits and arithmetic only (checked above)
    value = (new Function(`return (${size});`) as () => unknown)();
  } catch {
    return undefined;
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

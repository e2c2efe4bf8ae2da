/**
 * The state of generating one JS function: output lines, the JS names bound to IR variables,
 * the typed arrays holding each storage (`data`) variable, buffer layouts, temporaries, and the
 * error-site table the runtime uses to describe failures.
 */
import type { Buffer } from "../buffer.js";
import type { Call, PrimExpr, Var } from "../expr.js";
import type { For } from "../stmt.js";
import { ExecutionError } from "./errors.js";
import { NameAllocator } from "./names.js";
import type { IntRange } from "./index-ranges.js";
import { ErrorSiteTable } from "./runtime.js";

/** How element `[i0, i1, …]` of a buffer is found: `array[offset + Σ i_k * strides[k]]` (all JS snippets). */
export interface BufferLayout {
  readonly array: string;
  readonly shape: readonly string[];
  readonly strides: readonly string[];
  readonly offset: string;
}

/**
 * Ways another executor can change how some constructs are emitted (the GPU simulator uses them to
 * make barriers real and shared memory per thread block). Without hooks the code is sequential.
 */
export interface EmitHooks {
  /** Emits the statement `T.tvm_storage_sync(...)`; by default a no-op comment. */
  readonly barrier?: (ctx: EmitContext, call: Call) => void;
  /**
   * The JS expression giving the storage array of an allocation of `buffer` (evaluated where it
   * runs): `what` says whether it is an `Allocate` or a block's `T.alloc_buffer`. Undefined keeps
   * the default: a fresh zeroed array at every execution.
   */
  readonly allocation?: (ctx: EmitContext, buffer: Buffer, size: string, what: "T.allocate" | "T.alloc_buffer") => string | undefined;
  /**
   * Wraps the JS of the flat element index of an access to `buffer` (after its bounds check), e.g.
   * to record the access; must evaluate `indexJs` exactly once and return its value. A vector
   * access is emitted lane by lane, lane 0 first: `lane` is the lane, undefined for a scalar access.
   * `asyncCopy` marks the destination elements of a `T.ptx_cp_async`, recorded when the copy lands
   * (called once per element, `indexJs` the element's flat index) rather than by an instruction.
   */
  readonly elementIndex?: (
    ctx: EmitContext,
    buffer: Buffer,
    indices: readonly PrimExpr[],
    indexJs: string,
    access: "load" | "store",
    lane: number | undefined,
    asyncCopy?: boolean,
  ) => string;
  /**
   * Wraps the JS of the first destination element of a `T.ptx_cp_async` where the copy is issued:
   * the shared-memory instruction the copy is (a bank-conflict model records it there; the
   * elements it writes reach `elementIndex` only when the copy lands). `indices` is the
   * destination as an access: a scalar index, or a stride-1 Ramp over the copy's lanes. Must
   * evaluate `indexJs` exactly once and return its value.
   */
  readonly asyncCopyIssue?: (ctx: EmitContext, buffer: Buffer, indices: readonly PrimExpr[], indexJs: string) => string;
  /**
   * Emits a `For` statement: `emitInPlace` emits it where it stands; a hook may instead emit it
   * apart (`captured`) and place it in a function of its own (the GPU simulator takes loops without
   * barriers out of its generator functions, which V8 optimises less well).
   */
  readonly loop?: (ctx: EmitContext, loop: For, emitInPlace: () => void) => void;
  /**
   * Emits the statement `call` (an `Evaluate` of an intrinsic the executor does not run, e.g. the
   * GPU simulator's warp-level WMMA operations); returns false to leave it to the executor.
   */
  readonly intrinsic?: (ctx: EmitContext, call: Call) => boolean;
}

/** Code emitted apart by `EmitContext.captured`. */
export interface CapturedCode {
  /** Its lines, indented as a function body. */
  readonly lines: readonly string[];
  /** The temporaries it uses, to declare where the lines are placed. */
  readonly temps: readonly string[];
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

export class EmitContext {
  readonly names = new NameAllocator();
  readonly sites = new ErrorSiteTable();
  /** Where in the IR we are, appended to error messages (e.g. ` in block "C"`). */
  where = "";
  /** How many loops enclose the code being emitted (a `break` or `continue` needs one). */
  loopNesting = 0;
  private body: string[] = [];
  private depth = 1;
  private temps: string[] = [];
  private readonly varNames = new Map<Var, string>();
  private readonly varRanges = new Map<Var, IntRange>();
  private readonly arrays = new Map<Var, string>();
  /** The buffer that declared each storage (a parameter, an allocation). */
  private readonly owners = new Map<Var, Buffer>();
  private readonly layouts = new Map<Buffer, BufferLayout>();
  /** The function issues asynchronous copies, so it needs a copy queue (`$async`). */
  private asyncCopies = false;

  /**
   * @param boundsCheck check buffer indices at run time
   * @param checkProvenIndices also check indices proven in range at compile time (to measure the full cost)
   * @param hooks how barriers, allocations and element accesses are emitted (default: sequentially)
   */
  constructor(
    readonly boundsCheck: boolean,
    readonly checkProvenIndices = false,
    readonly hooks: EmitHooks = {},
  ) {}

  line(text: string): void {
    this.body.push(`${"  ".repeat(this.depth)}${text}`);
  }

  /** Emits `open`, then `inner` one level deeper, then `close`. */
  nested(open: string, inner: () => void, close = "}"): void {
    this.line(open);
    this.indented(inner);
    this.line(close);
  }

  indented(inner: () => void): void {
    this.depth++;
    try {
      inner();
    } finally {
      this.depth--;
    }
  }

  /** Lines emitted so far, indented for a function body. */
  bodyLines(): readonly string[] {
    return this.body;
  }

  /**
   * Emits `inner` apart: its lines and the temporaries it creates are returned instead of joining
   * this function's. Names stay unique across both, so the lines can be placed in another function
   * that receives the names they use from here (see `visibleNames`).
   */
  captured(inner: () => void): CapturedCode {
    const { body, temps, depth } = this;
    this.body = [];
    this.temps = [];
    this.depth = 1;
    try {
      inner();
      return { lines: this.body, temps: this.temps };
    } finally {
      this.body = body;
      this.temps = temps;
      this.depth = depth;
    }
  }

  /**
   * The JS names code emitted from here on may use that were declared before: bound variables,
   * storage arrays and the constants of buffer layouts (a superset: names of closed scopes stay).
   */
  visibleNames(): Set<string> {
    const names = new Set<string>([...this.varNames.values(), ...this.arrays.values()]);
    for (const layout of this.layouts.values()) {
      for (const js of [layout.array, layout.offset, ...layout.shape, ...layout.strides]) {
        for (const id of js.match(IDENTIFIER) ?? []) names.add(id);
      }
    }
    return names;
  }

  /** A function-level `let` temporary (for `Let` expressions and bounds-checked indices). */
  temp(hint: string): string {
    const name = this.names.internal(hint);
    this.temps.push(name);
    return name;
  }

  tempNames(): readonly string[] {
    return this.temps;
  }

  /** The name of the thread's asynchronous copy queue, which the function now needs. */
  asyncQueue(): string {
    this.asyncCopies = true;
    return "$async";
  }

  /** Declarations that open the generated function body: temporaries and the copy queue. */
  prologueLines(): string[] {
    return [...(this.temps.length > 0 ? [`  let ${this.temps.join(", ")};`] : []), ...(this.asyncCopies ? ["  const $async = $rt.asyncCopies();"] : [])];
  }

  usesAsyncCopies(): boolean {
    return this.asyncCopies;
  }

  /**
   * Gives `v` a fresh JS name for the duration of its scope; call the returned function when the
   * scope ends. Each binding site gets its own name, so re-bound variables never clash in JS.
   * `range`, when known, is the constant inclusive range of the variable's values in the scope.
   */
  bindVar(v: Var, name = this.names.fresh(v.name), range?: IntRange): { name: string; unbind: () => void } {
    const previous = this.varNames.get(v);
    const previousRange = this.varRanges.get(v);
    this.varNames.set(v, name);
    if (range === undefined) this.varRanges.delete(v);
    else this.varRanges.set(v, range);
    return {
      name,
      unbind: () => {
        if (previous === undefined) this.varNames.delete(v);
        else this.varNames.set(v, previous);
        if (previousRange === undefined) this.varRanges.delete(v);
        else this.varRanges.set(v, previousRange);
      },
    };
  }

  /** The constant range of a bound variable, if known. */
  readonly rangeOf = (v: Var): IntRange | undefined => this.varRanges.get(v);

  varName(v: Var): string {
    const name = this.varNames.get(v);
    if (name === undefined) {
      throw new ExecutionError(`variable ${v.name} (${v.dtype}) is used${this.where} but not bound by a parameter, loop, block, or let`);
    }
    return name;
  }

  isBound(v: Var): boolean {
    return this.varNames.has(v);
  }

  /** `array` holds the storage `data`; `owner` is the buffer that declared it (its size bounds raw accesses). */
  setArray(data: Var, array: string, owner?: Buffer): void {
    this.arrays.set(data, array);
    if (owner !== undefined) this.owners.set(data, owner);
  }

  storageOwner(data: Var): Buffer | undefined {
    return this.owners.get(data);
  }

  arrayOf(data: Var): string | undefined {
    return this.arrays.get(data);
  }

  setLayout(buffer: Buffer, layout: BufferLayout): void {
    this.layouts.set(buffer, layout);
  }

  layout(buffer: Buffer): BufferLayout | undefined {
    return this.layouts.get(buffer);
  }
}

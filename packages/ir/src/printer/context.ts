/**
 * State shared by the expression and statement printers while printing one function (or one
 * diagnostic fragment).
 */
import type { Buffer } from "../buffer.js";
import type { Var } from "../expr.js";
import type { For } from "../stmt.js";
import { NameTable } from "./names.js";
import type { Style } from "./style.js";

export class PrintContext {
  readonly names = new NameTable();
  /** Loops enclosing the statement being printed, outermost first (for `T.axis.remap`). */
  readonly enclosingLoops: For[] = [];

  constructor(
    readonly style: Style,
    readonly highlight: ReadonlySet<object>,
    /** "course": `T.block` and block allocations as `T.alloc_buffer`; "tvm": today's `T.sblock*` spellings. */
    readonly dialect: "course" | "tvm" = "course",
  ) {}

  /** The printed name of a variable; one the IR never declared is named on first use. */
  varName(v: Var): string {
    return this.names.get(v) ?? this.names.atRoot(() => this.names.define(v, v.name, "v"));
  }

  /** The printed name of a buffer; one the IR never declared is named on first use. */
  bufferName(b: Buffer): string {
    return this.names.get(b) ?? this.names.atRoot(() => this.defineBuffer(b));
  }

  /**
   * Defines `b`'s printed name in the current scope. Its data pointer, when not already named,
   * prints as `<name>.data` from then on.
   */
  defineBuffer(b: Buffer): string {
    const name = this.names.define(b, b.name, "buffer");
    this.names.alias(b.data, `${name}.data`);
    return name;
  }

  /** `T.block`, `T.block_attr` or a block's `T.alloc_buffer`, spelled in the printed dialect. */
  blockTir(name: "block" | "block_attr" | "alloc_buffer"): string {
    return this.tir(this.dialect === "tvm" ? `s${name === "alloc_buffer" ? "block_alloc_buffer" : name}` : name);
  }

  /** `T.<name>` with the `T` module prefix. */
  tir(name: string): string {
    return `T.${name}`;
  }
}

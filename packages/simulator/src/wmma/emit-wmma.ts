/**
 * JavaScript for the WMMA intrinsics of a kernel: fragment allocations become per-warp storage of
 * the block (`$rt.wmma.fragment`), and `T.tvm_fill_fragment` / `T.tvm_load_matrix_sync` /
 * `T.tvm_store_matrix_sync` / `T.tvm_mma_sync` calls of the warp-collective runtime
 * (warp-collectives.ts), each with its site, the thread's index and its evaluated arguments.
 */
import { type Buffer, type Call, type PrimExpr, type Var, printExpr } from "@tessera/ir";
import { type EmitContext, emitExpr } from "@tessera/ir/executor-kit";
import { type PointerJs, accessPointerJs } from "../access-pointer.js";
import { SimulationError } from "../errors.js";
import type { FragmentRole } from "./fragment-ops.js";
import type { CollectiveSite } from "./warp-collectives.js";

const ROLES: Readonly<Record<string, FragmentRole>> = { "wmma.matrix_a": "matrix_a", "wmma.matrix_b": "matrix_b", "wmma.accumulator": "accumulator" };

export function isFragmentScope(scope: string): boolean {
  return Object.hasOwn(ROLES, scope);
}

export class WmmaEmitter {
  readonly sites: CollectiveSite[] = [];
  private readonly allocations = new Map<Var, number>();

  /** `thread`: the JS names of threadIdx.x, .y, .z in the thread function. */
  constructor(
    private readonly kernel: string,
    private readonly thread: readonly [string, string, string],
  ) {}

  /** The JS expression of a fragment allocation's storage (the warp's, for the current block). */
  allocation(buffer: Buffer, size: string): string {
    let k = this.allocations.get(buffer.data);
    if (k === undefined) this.allocations.set(buffer.data, (k = this.allocations.size));
    return `$rt.wmma.fragment(${k}, ${this.thread.join(", ")}, ${size}, ${buffer.dtype === "float64"})`;
  }

  /** Emits `call` when it is a WMMA intrinsic; false otherwise. */
  intrinsic(ctx: EmitContext, call: Call): boolean {
    const arity = { tvm_fill_fragment: 6, tvm_load_matrix_sync: 8, tvm_store_matrix_sync: 8, tvm_mma_sync: 8 }[call.op];
    if (arity === undefined) return false;
    const text = printExpr(call);
    if (call.args.length !== arity) this.fail(`${text} has ${call.args.length} arguments, T.${call.op} takes ${arity}`);
    const expr = (i: number): string => emitExpr(ctx, call.args[i]!);
    const lead = (site: number) => `${site}, ${this.thread.join(", ")}`;
    if (call.op === "tvm_mma_sync") {
      const operands = [0, 2, 4, 6].map((i) => this.fragment(ctx, call, i));
      const roles = operands.map((o) => ROLES[o.buffer.scope]!);
      const site = this.site({ text, dtype: operands[0]!.buffer.dtype, roles });
      const args = operands.map((o, j) => `${o.js}, ${expr(j * 2 + 1)}`).join(", ");
      ctx.line(`$rt.wmma.mmaSync(${lead(site)}, ${args});`);
      return true;
    }
    const frag = this.fragment(ctx, call, 0);
    const [m, n, k] = [1, 2, 3].map((i) => this.constant(call, i, text));
    const shape = { role: ROLES[frag.buffer.scope]!, m: m!, n: n!, k: k! };
    if (call.op === "tvm_fill_fragment") {
      const site = this.site({ text, dtype: frag.buffer.dtype, shape });
      ctx.line(`$rt.wmma.fillFragment(${lead(site)}, ${frag.js}, ${expr(4)}, ${expr(5)});`);
      return true;
    }
    const layout = call.args[7];
    if (layout?.kind !== "StringImm" || (layout.value !== "row_major" && layout.value !== "col_major"))
      this.fail(`${text}: the layout must be "row_major" or "col_major"`);
    const pointer = this.pointer(ctx, call.args[5]!, text);
    const site = this.site({ text, dtype: frag.buffer.dtype, shape, colMajor: layout.value === "col_major" });
    if (call.op === "tvm_load_matrix_sync") {
      ctx.line(`$rt.wmma.loadMatrix(${lead(site)}, ${frag.js}, ${expr(4)}, ${pointer.array}, ${pointer.offset}, ${expr(6)});`);
    } else {
      if (shape.role !== "accumulator") this.fail(`${text}: only accumulator fragments can be stored, ${frag.buffer.name} is a ${shape.role} fragment`);
      ctx.line(
        `$rt.wmma.storeMatrix(${lead(site)}, ${frag.js}, ${expr(4)}, ${pointer.array}, ${pointer.offset}, ${expr(6)}, ${JSON.stringify(pointer.dtype)});`,
      );
    }
    return true;
  }

  private site(s: CollectiveSite): number {
    this.sites.push(s);
    return this.sites.length - 1;
  }

  private fragment(ctx: EmitContext, call: Call, i: number): { js: string; buffer: Buffer } {
    const data = call.args[i];
    const buffer = data?.kind === "Var" ? ctx.storageOwner(data) : undefined;
    const js = data?.kind === "Var" ? ctx.arrayOf(data) : undefined;
    if (buffer === undefined || js === undefined || !isFragmentScope(buffer.scope)) {
      this.fail(`${printExpr(call)}: argument ${i} must be the storage of a fragment allocated in a wmma.matrix_a, wmma.matrix_b or wmma.accumulator scope`);
    }
    return { js, buffer };
  }

  private pointer(ctx: EmitContext, e: PrimExpr, text: string): PointerJs {
    return accessPointerJs(ctx, e) ?? this.fail(`${text}: the pointer must be a T.tvm_access_ptr into a buffer of the kernel`);
  }

  private constant(call: Call, i: number, text: string): number {
    const a = call.args[i];
    if (a?.kind !== "IntImm") this.fail(`${text}: m, n and k must be integer constants`);
    return a.value;
  }

  private fail(detail: string): never {
    throw new SimulationError(`kernel ${this.kernel}: ${detail}`);
  }
}

/**
 * JavaScript for the mma.sync intrinsics of a lowered kernel (their registers are `local` arrays
 * by then): ldmatrix and mma arrive at the warp-collective runtime (`$rt.mma`, warp-mma.ts) and
 * yield `COLLECTIVE_YIELD` until the warp's lanes have all arrived; fill and store run at once.
 */
import { type Buffer, type Call, type PrimExpr, type Var, printExpr } from "@tessera/ir";
import {
  MMA_FILL,
  MMA_STORE,
  MMA_TF32X3,
  PTX_LDMATRIX,
  PTX_MMA,
  WARP_OP_ARITY,
  WGMMA_COMMIT_GROUP,
  WGMMA_FENCE,
  WGMMA_MMA_ASYNC,
  WGMMA_MMA_ASYNC_RS,
  WGMMA_OP_ARITY,
  wgmmaArgCountFits,
  WGMMA_WAIT_GROUP,
} from "@tessera/codegen";
import { type EmitContext, emitExpr } from "@tessera/ir/executor-kit";
import { type PointerJs, accessPointerJs } from "../access-pointer.js";
import { SimulationError } from "../errors.js";
import { M16N8K16, M16N8K8_TF32, type MmaShape } from "./ptx-layouts.js";
import { COLLECTIVE_YIELD, type WarpMmaSite } from "./warp-mma.js";

/** The MMA variants the simulator runs: operand types → shape, tf32 rounding and accumulator type. */
const MMA_VARIANTS: Readonly<Record<string, { shape: MmaShape; tf32: boolean; accumulator: string }>> = {
  "m16n8k16.fp16.fp16.fp32": { shape: M16N8K16, tf32: false, accumulator: "float32" },
  "m16n8k16.fp16.fp16.fp16": { shape: M16N8K16, tf32: false, accumulator: "float16" },
  "m16n8k16.bf16.bf16.fp32": { shape: M16N8K16, tf32: false, accumulator: "float32" },
  "m16n8k8.tf32.tf32.fp32": { shape: M16N8K8_TF32, tf32: true, accumulator: "float32" },
};

/** Whether a call is one of the warp-collective ones (a yield point of the thread). */
export function isCollectiveMmaCall(call: Call): boolean {
  return call.op === PTX_LDMATRIX || call.op === PTX_MMA || call.op === MMA_TF32X3 || call.op === WGMMA_MMA_ASYNC || call.op === WGMMA_MMA_ASYNC_RS;
}

export class MmaEmitter {
  readonly sites: WarpMmaSite[] = [];

  /**
   * `thread`: the JS names of threadIdx.x, .y, .z in the thread function; `bankSite`, with the
   * bank-conflict model: the report row of an ldmatrix reading `buffer`.
   */
  constructor(
    private readonly kernel: string,
    private readonly thread: readonly [string, string, string],
    private readonly bankSite?: (buffer: Buffer, text: string) => number,
  ) {}

  /** Emits `call` when it is an mma.sync intrinsic; false otherwise. */
  intrinsic(ctx: EmitContext, call: Call): boolean {
    if (WGMMA_OP_ARITY[call.op] !== undefined) return this.wgmma(ctx, call);
    const arity = WARP_OP_ARITY[call.op];
    if (arity === undefined) return false;
    const text = printExpr(call);
    if (call.args.length !== arity) this.fail(`${text} has ${call.args.length} arguments, T.${call.op} takes ${arity}`);
    const expr = (i: number): string => emitExpr(ctx, call.args[i]!);
    const regs = (i: number): string => `${this.array(ctx, call.args[i]!, text)}, ${expr(i + 1)}`;
    const thread = this.thread.join(", ");
    switch (call.op) {
      case MMA_FILL: {
        const site = this.site({ kind: "fill", text });
        ctx.line(`$rt.mma.fill(${site}, ${thread}, ${regs(1)}, ${expr(0)});`);
        return true;
      }
      case MMA_STORE: {
        if (this.constant(call, 0, text) !== 16 || this.constant(call, 1, text) !== 16) this.fail(`${text}: only 16×16 tiles are supported`);
        const dst = this.pointer(ctx, call.args[2]!, text);
        const site = this.site({ kind: "store", text });
        ctx.line(`$rt.mma.store(${site}, ${thread}, ${dst.array}, ${dst.offset}, ${expr(5)}, ${regs(3)}, ${JSON.stringify(dst.dtype)});`);
        return true;
      }
      case MMA_TF32X3: {
        const site = this.site({ kind: "mma_tf32x3", text });
        ctx.line(`$rt.mma.arrive(${site}, ${thread}, ${[0, 2, 4, 6, 8].map(regs).join(", ")});`);
        ctx.line(`yield ${COLLECTIVE_YIELD};`);
        return true;
      }
      case PTX_LDMATRIX: {
        const matrices = this.constant(call, 1, text);
        if (matrices !== 1 && matrices !== 2 && matrices !== 4) this.fail(`${text}: ldmatrix loads 1, 2 or 4 matrices`);
        const src = this.pointer(ctx, call.args[5]!, text);
        const owner = ctx.storageOwner((call.args[5] as Call).args[1] as Var);
        const bankSite = owner?.scope.startsWith("shared") ? this.bankSite?.(owner, text) : undefined;
        const trans = this.constant(call, 0, text) !== 0;
        // 32-bit elements move as pairs of b16 (a tf32 operand whose k is contiguous); .trans would split them.
        const elementBytes =
          src.dtype === "float16" || src.dtype === "bfloat16"
            ? 2
            : src.dtype === "float32"
              ? 4
              : this.fail(`${text}: ldmatrix moves 16-bit elements or 32-bit ones as pairs, not ${src.dtype}`);
        if (trans && elementBytes === 4)
          this.fail(`${text}: ldmatrix .trans transposes 16-bit halves; it would split the 32-bit elements of a ${src.dtype} buffer`);
        const site = this.site({ kind: "ldmatrix", text, matrices, trans, elementBytes, ...(bankSite === undefined ? {} : { bankSite }) });
        ctx.line(`$rt.mma.arrive(${site}, ${thread}, ${regs(3)}, ${src.array}, ${src.offset} + ${expr(6)});`);
        ctx.line(`yield ${COLLECTIVE_YIELD};`);
        return true;
      }
      default: {
        const key = [0, 3, 4, 5].map((i) => this.string(call, i, text));
        const variant = MMA_VARIANTS[`${key[0]}.${key[1]}.${key[2]}.${key[3]}`];
        if (variant === undefined) this.fail(`${text}: no mma.sync ${key.join(".")}; the simulator runs ${Object.keys(MMA_VARIANTS).join(", ")}`);
        if (this.string(call, 1, text) !== "row" || this.string(call, 2, text) !== "col") this.fail(`${text}: only row-major A and column-major B exist`);
        const site = this.site({ kind: "mma", text, ...variant });
        ctx.line(`$rt.mma.arrive(${site}, ${thread}, ${regs(6)}, ${regs(8)}, ${regs(10)});`);
        ctx.line(`yield ${COLLECTIVE_YIELD};`);
        return true;
      }
    }
  }

  /**
   * The wgmma ops: the MMA is warp-collective (each warp its 16 rows, warp-wgmma.ts) and complete
   * when it returns; the commit and wait keep its group in flight until it is retired (warp-mma.ts
   * checks that nothing overwrote what it read), the fence has nothing left to order.
   */
  private wgmma(ctx: EmitContext, call: Call): boolean {
    const text = printExpr(call);
    const arity = WGMMA_OP_ARITY[call.op]!;
    if (arity >= 0 && !wgmmaArgCountFits(call.op, call.args.length)) this.fail(`${text} has ${call.args.length} arguments, T.${call.op} takes ${arity}`);
    if (call.op === WGMMA_FENCE) return true;
    if (call.op === WGMMA_COMMIT_GROUP) {
      ctx.line(`$rt.mma.wgmmaCommit(${this.thread.join(", ")});`);
      return true;
    }
    if (call.op === WGMMA_WAIT_GROUP) {
      // An immediate of the instruction, 0 to 7, as the CUDA generator checks.
      const pending = this.constant(call, 0, text);
      if (pending < 0 || pending > 7) this.fail(`${text}: wgmma.wait_group takes 0 to 7 pending groups, not ${pending}`);
      ctx.line(`$rt.mma.wgmmaWait(${pending}, ${this.thread.join(", ")});`);
      return true;
    }
    if (call.op === WGMMA_MMA_ASYNC_RS) return this.wgmmaRegisterA(ctx, call, text);
    const shape = this.string(call, 0, text);
    const m = /^m64n(\d+)k(8|16)$/.exec(shape);
    const [n, k] = [Number(m?.[1] ?? Number.NaN), Number(m?.[2] ?? Number.NaN)];
    if (!Number.isInteger(n) || n % 16 !== 0 || n < 16 || n > 256)
      this.fail(`${text}: shape ${shape} is not m64nNk16 (fp16) or m64nNk8 (tf32) with N a multiple of 16 up to 256`);
    const types = [1, 2, 3].map((i) => this.string(call, i, text)).join(".");
    const tf32 = types === "tf32.tf32.fp32";
    if (!(types === "fp16.fp16.fp32" && k === 16) && !(tf32 && k === 8))
      this.fail(`${text}: the simulator runs m64nNk16 fp16.fp16.fp32 and m64nNk8 tf32.tf32.fp32 wgmma only, not ${shape} ${types}`);
    if (this.constant(call, 4, text) !== 0) this.fail(`${text}: A must be K-major (trans_a 0)`);
    if (tf32 && this.constant(call, 5, text) !== 0) this.fail(`${text}: tf32 B must be K-major (trans_b 0): PTX has no transpose for 32-bit operands`);
    if (this.constant(call, 6, text) !== 128) this.fail(`${text}: the simulator runs the 128-byte swizzle only`);
    const expr = (i: number): string => emitExpr(ctx, call.args[i]!);
    const [a, b] = [this.pointer(ctx, call.args[7]!, text), this.pointer(ctx, call.args[10]!, text)];
    const site = this.site({ kind: "wgmma", text, n, transB: this.constant(call, 5, text) !== 0, tf32 });
    const c = `${this.array(ctx, call.args[13]!, text)}, ${expr(14)}`;
    ctx.line(
      `$rt.mma.arrive(${site}, ${this.thread.join(", ")}, ${c}, ${a.array}, ${a.offset}, ${expr(8)}, ${expr(9)}, ${b.array}, ${b.offset}, ${expr(11)}, ${expr(12)});`,
    );
    ctx.line(`yield ${COLLECTIVE_YIELD};`);
    return true;
  }

  /** `wgmma_mma_async_rs`: m64nNk8 tf32, A from each lane's 4 registers, B K-major from shared memory. */
  private wgmmaRegisterA(ctx: EmitContext, call: Call, text: string): boolean {
    const shape = this.string(call, 0, text);
    const n = Number(/^m64n(\d+)k8$/.exec(shape)?.[1] ?? Number.NaN);
    const types = [1, 2, 3].map((i) => this.string(call, i, text)).join(".");
    if (!Number.isInteger(n) || n % 16 !== 0 || n < 16 || n > 256 || types !== "tf32.tf32.fp32")
      this.fail(`${text}: the simulator runs register-A wgmma as m64nNk8 tf32.tf32.fp32 only (N a multiple of 16 up to 256), not ${shape} ${types}`);
    if (this.constant(call, 4, text) !== 0) this.fail(`${text}: tf32 B must be K-major (trans_b 0): PTX has no transpose for 32-bit operands`);
    if (this.constant(call, 5, text) !== 128) this.fail(`${text}: the simulator runs the 128-byte swizzle only`);
    const expr = (i: number): string => emitExpr(ctx, call.args[i]!);
    const b = this.pointer(ctx, call.args[8]!, text);
    const scaleD = call.args.length > 13 ? this.constant(call, 13, text) : 1;
    if (scaleD !== 0 && scaleD !== 1) this.fail(`${text}: scale-d is 0 or 1, not ${scaleD}`);
    const site = this.site({ kind: "wgmma", text, n, transB: false, tf32: true, registerA: true, ...(scaleD === 0 ? { zeroD: true } : {}) });
    const c = `${this.array(ctx, call.args[11]!, text)}, ${expr(12)}`;
    const a = `${this.array(ctx, call.args[6]!, text)}, ${expr(7)}`;
    ctx.line(`$rt.mma.arrive(${site}, ${this.thread.join(", ")}, ${c}, ${a}, 0, 0, ${b.array}, ${b.offset}, ${expr(9)}, ${expr(10)});`);
    ctx.line(`yield ${COLLECTIVE_YIELD};`);
    return true;
  }

  private site(s: WarpMmaSite): number {
    this.sites.push(s);
    return this.sites.length - 1;
  }

  private array(ctx: EmitContext, data: PrimExpr, text: string): string {
    const js = data.kind === "Var" ? ctx.arrayOf(data) : undefined;
    if (js === undefined) this.fail(`${text}: a register operand must be an array allocated in the kernel`);
    return js;
  }

  private pointer(ctx: EmitContext, e: PrimExpr, text: string): PointerJs {
    return accessPointerJs(ctx, e) ?? this.fail(`${text}: the pointer must be a T.tvm_access_ptr into a buffer of the kernel`);
  }

  private constant(call: Call, i: number, text: string): number {
    const a = call.args[i];
    if (a?.kind !== "IntImm") this.fail(`${text}: argument ${i} must be an integer constant`);
    return a.value;
  }

  private string(call: Call, i: number, text: string): string {
    const a = call.args[i];
    if (a?.kind !== "StringImm") this.fail(`${text}: argument ${i} must be a string`);
    return a.value;
  }

  private fail(detail: string): never {
    throw new SimulationError(`kernel ${this.kernel}: ${detail}`);
  }
}

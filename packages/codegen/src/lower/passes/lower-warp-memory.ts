/**
 * `lowerWarpMemory` (TVM LowerWarpMemory, for the mma.sync intrinsics): a `warp` allocation holds
 * 32 lanes × `width` registers per group (`[groups, 32, width]` flat, as the ldmatrix/mma layouts
 * write it), and becomes a `local` allocation of `groups × width` registers per thread. Each
 * register operand of an mma.sync intrinsic, `x = width·threadIdx.x + r`, becomes the thread's
 * own register index `r // (32·width) · width + r % width`. `width` is the coefficient of
 * threadIdx.x in those offsets. A plain store or load whose flat index is `width·threadIdx.x + r`
 * touches the calling lane's own register (the tf32 fragment loads, which ldmatrix cannot do: it
 * moves 16-bit halves; the 3xTF32 chunk add, each lane adding its chunk registers into its main
 * ones; the stores of an accumulator) and becomes an access of that
 * thread's register; a vector access of a lane's adjacent registers (a unit-stride ramp, the
 * 16-bit epilogue's register pairs) likewise, by its first lane. TVM also turns plain loads of
 * another lane's register into warp shuffles; ours refuses them.
 */
import {
  type Allocate,
  Analyzer,
  asRamp,
  type Call,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  constantSize,
  floordiv,
  floormod,
  forEachExpr,
  forEachStmt,
  intImm,
  linearFormOf,
  mul,
  printExpr,
  ramp,
  withBuffer,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { cudaPass } from "../pass.js";
import { registerOperands } from "../util/warp-operands.js";

const PASS = "lowerWarpMemory";
const WARP_SIZE = 32;
const LANE_TAG = "threadIdx.x";

interface WarpBuffer {
  readonly name: string;
  /** Registers of one lane per group. */
  readonly width: number;
  /** Registers per thread after lowering. */
  readonly perThread: number;
}

function fail(detail: string): never {
  throw new LoweringError(PASS, detail);
}

/** `x` as `coef · threadIdx.x + rest`. */
function splitLane(x: PrimExpr): { coef: number; rest: PrimExpr } {
  const form = linearFormOf(new Analyzer().simplify(x));
  let coef = 0;
  let rest: PrimExpr = intImm(form.constant, x.dtype);
  for (const t of form.terms) {
    if (t.atom.kind === "Var" && t.atom.name === LANE_TAG) coef += t.coef;
    else rest = add(rest, t.coef === 1 ? t.atom : mul(t.atom, t.coef));
  }
  return { coef, rest };
}

/** The per-lane register offsets of `func`'s mma.sync intrinsics (ldmatrix, mma) and plain accesses of `warpData`, by buffer data variable. */
function laneOffsets(body: Stmt, warpData: ReadonlySet<Var>): Map<Var, PrimExpr[]> {
  const found = new Map<Var, PrimExpr[]>();
  const note = (data: Var, offset: PrimExpr) => found.set(data, [...(found.get(data) ?? []), offset]);
  forEachStmt(body, (s) => {
    if (s.kind === "BufferStore" && warpData.has(s.buffer.data) && s.indices.length === 1) note(s.buffer.data, firstLane(s.indices[0]!));
  });
  forEachExpr(body, (e) => {
    if (e.kind === "BufferLoad" && warpData.has(e.buffer.data) && e.indices.length === 1) note(e.buffer.data, firstLane(e.indices[0]!));
    if (e.kind !== "Call") return;
    for (const operand of registerOperands(e)) {
      const data = e.args[operand.buffer];
      const offset = e.args[operand.offset];
      if (operand.perLane && data?.kind === "Var" && offset !== undefined) note(data, offset);
    }
  });
  return found;
}

/** A flat index's first element: a vector index's base (`asRamp`), else the index. */
function firstLane(index: PrimExpr): PrimExpr {
  return asRamp(index)?.base ?? index;
}

function planWarpBuffer(alloc: Allocate, offsets: readonly PrimExpr[]): WarpBuffer {
  const name = alloc.buffer.name;
  const size = constantSize(alloc.buffer);
  if (size === undefined) fail(`warp buffer ${name} has no constant size`);
  if (offsets.length === 0) fail(`warp buffer ${name} is accessed by no ldmatrix, mma or lane's own access, so its registers per lane are unknown`);
  const widths = new Set(offsets.map((x) => splitLane(x).coef));
  const [width] = widths;
  if (widths.size !== 1 || width === undefined || width <= 0)
    fail(`the register offsets of warp buffer ${name} give its lanes different widths (coefficients of ${LANE_TAG}: ${[...widths].join(", ")})`);
  if (size % (WARP_SIZE * width) !== 0) fail(`warp buffer ${name} of ${size} elements is not a whole number of ${WARP_SIZE} lanes × ${width} registers`);
  return { name, width, perThread: size / WARP_SIZE };
}

class WarpMemoryRewriter extends IRMutator {
  private readonly analyzer = new Analyzer();

  constructor(private readonly plans: ReadonlyMap<Var, WarpBuffer>) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    // Loop bounds let a group operand inside a lane's registers (a wgmma accumulator's 16×16 tile
    // j at register 8j of a lane's N/2) be proven to start at lane 0.
    if (s.kind === "For") this.analyzer.bind(s.loopVar, { min: s.min, extent: s.extent }, true);
    const visited = super.visitStmt(s);
    if ((visited.kind !== "Allocate" && visited.kind !== "BufferStore") || this.plans.get(visited.buffer.data) === undefined) return visited;
    const plan = this.plans.get(visited.buffer.data)!;
    const buffer = withBuffer(visited.buffer, { scope: "local", shape: [intImm(plan.perThread)], data: visited.buffer.data });
    if (visited.kind === "Allocate") return { ...visited, buffer };
    return { ...visited, buffer, indices: this.laneIndex(plan, visited.indices) };
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    const visited = super.visitExpr(e);
    if (visited.kind === "Call") return this.rewriteCall(visited);
    const plan = visited.kind === "BufferLoad" ? this.plans.get(visited.buffer.data) : undefined;
    if (visited.kind !== "BufferLoad" || plan === undefined) return visited;
    const buffer = withBuffer(visited.buffer, { scope: "local", shape: [intImm(plan.perThread)], data: visited.buffer.data });
    return { ...visited, buffer, indices: this.laneIndex(plan, visited.indices) };
  }

  /** The thread's register index of a plain access of the lane's own register (or registers: a unit-stride ramp within the lane's). */
  private laneIndex(plan: WarpBuffer, indices: readonly PrimExpr[]): PrimExpr[] {
    if (indices.length !== 1) fail(`an access of warp buffer ${plan.name} is not flat (${indices.length} indices)`);
    const vector = asRamp(indices[0]!);
    if (vector === undefined) return [this.threadRegister(plan, indices[0]!, true)];
    const { rest } = splitLane(vector.base);
    const adjacent = vector.stride.kind === "IntImm" && vector.stride.value === 1;
    if (!adjacent || !this.analyzer.canProveLess(add(floormod(rest, plan.width), vector.lanes - 1), plan.width))
      fail(`the vector access ${printExpr(indices[0]!)} of warp buffer ${plan.name} is not of adjacent registers of one lane`);
    return [ramp(this.threadRegister(plan, vector.base, true), 1, vector.lanes)];
  }

  private rewriteCall(call: Call): Call {
    const operands = registerOperands(call);
    if (operands.length === 0) return call;
    const args = [...call.args];
    for (const operand of operands) {
      const data = args[operand.buffer];
      const plan = data?.kind === "Var" ? this.plans.get(data) : undefined;
      if (plan === undefined) continue;
      args[operand.offset] = this.threadRegister(plan, args[operand.offset]!, operand.perLane);
    }
    return { ...call, args };
  }

  /** The thread's register index of warp offset `x` (of lane 0 for a group operand). */
  private threadRegister(plan: WarpBuffer, x: PrimExpr, perLane: boolean): PrimExpr {
    const { coef, rest } = splitLane(x);
    if (coef !== (perLane ? plan.width : 0))
      fail(`the register offset ${printExpr(x)} of warp buffer ${plan.name} has ${LANE_TAG} × ${coef}, expected × ${perLane ? plan.width : 0}`);
    const group = WARP_SIZE * plan.width;
    if (!this.analyzer.canProveLess(floormod(rest, group), plan.width))
      fail(`the register offset ${printExpr(x)} of warp buffer ${plan.name} does not start at lane 0 of a group of ${WARP_SIZE} × ${plan.width} registers`);
    return this.analyzer.simplify(add(mul(floordiv(rest, group), plan.width), floormod(rest, plan.width)));
  }
}

export function lowerWarpMemory(func: PrimFunc): PrimFunc {
  const allocs: Allocate[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "Allocate" && s.buffer.scope === "warp") allocs.push(s);
  });
  if (allocs.length === 0) return func;
  const warpData = new Set(allocs.map((a) => a.buffer.data));
  const offsets = laneOffsets(func.body, warpData);
  const plans = new Map(allocs.map((a) => [a.buffer.data, planWarpBuffer(a, offsets.get(a.buffer.data) ?? [])] as const));
  return { ...func, body: new WarpMemoryRewriter(plans).visitStmt(func.body) };
}

export const lowerWarpMemoryPass = cudaPass(PASS, (func) => lowerWarpMemory(func));

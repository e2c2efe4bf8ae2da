/**
 * `foldWgmmaZeroFill`: a zero fill of a whole wgmma accumulator (`mma_fill` stores, in loops, that
 * cover every register of it) whose next use is a wgmma taking scale-d (the register-A form) that
 * writes all of it becomes that wgmma's scale-d 0 (`D = A·B`, the accumulator not read): the fill's
 * stores go and the tensor cores start from zero, as CUTLASS's first MMA of a tile does. 3xTF32's
 * chunk accumulator is zeroed at every k stage (wgmma-tf32x3-gemm.ts of @tessera/corpus); its first
 * wgmma then takes the fill's place. The next use is looked for in the statements after the fill in
 * its list, through scopes, not into loops or branches (one there keeps the fill). Not TVM's (TVM
 * has no wgmma): docs/architecture/tvm-deviations-lowering.md. Opt-in (`LowerOptions.foldWgmmaZeroFill`):
 * on the H200 the 3xTF32 kernel was no faster with it (docs/benchmarks/tensor-core-tf32-2026-11-30-s15).
 */
import {
  type Call,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  IRMutator,
  constantSize,
  evalIntExpr,
  forEachExpr,
  forEachStmt,
  intImm,
  withBody,
} from "@tessera/ir";
import { type Pass, cudaPass } from "../pass.js";
import { MMA_FILL, WGMMA_SCALE_D_ARG, wgmmaMmaOperands } from "../util/warp-operands.js";

const PASS = "foldWgmmaZeroFill";
/** Loop iterations enumerated at most to prove a fill covers its accumulator. */
const ENUMERATION_LIMIT = 4096;
/** Statements that only scope the ones inside them. */
const SCOPES: ReadonlySet<string> = new Set(["SeqStmt", "AttrStmt", "LetStmt", "Allocate", "DeclBuffer"]);

/** The accumulator `s` zero-fills entirely (`mma_fill` calls in constant loops, every register once or more), if it does. */
function wholeZeroFill(s: Stmt, sizes: ReadonlyMap<Var, number>): Var | undefined {
  const loops: { v: Var; extent: number }[] = [];
  let fill: Call | undefined;
  let other = false;
  forEachStmt(s, (x) => {
    if (x.kind === "For") {
      if (x.min.kind === "IntImm" && x.min.value === 0 && x.extent.kind === "IntImm") loops.push({ v: x.loopVar, extent: x.extent.value });
      else other = true;
    } else if (x.kind === "Evaluate" && x.value.kind === "Call" && x.value.op === MMA_FILL && fill === undefined) fill = x.value;
    // Scopes around the fill (the lowered warp intrinsic keeps a thread_extent attribute) are not other work.
    else if (!(x.kind === "AttrStmt" || (x.kind === "SeqStmt" && x.seq.length === 1))) other = true;
  });
  const data = fill?.args[1];
  const size = data?.kind === "Var" ? sizes.get(data) : undefined;
  const count = fill?.args[0]?.kind === "IntImm" ? fill.args[0].value : undefined;
  if (other || fill === undefined || data?.kind !== "Var" || size === undefined || count === undefined) return undefined;
  const combos = loops.reduce((n, l) => n * l.extent, 1);
  if (combos > ENUMERATION_LIMIT) return undefined;
  const covered = new Uint8Array(size);
  const env = new Map<Var, number>();
  for (let i = 0; i < combos; i++) {
    let rest = i;
    for (const l of loops) {
      env.set(l.v, rest % l.extent);
      rest = Math.floor(rest / l.extent);
    }
    const offset = evalIntExpr(fill.args[2]!, env);
    if (offset === undefined || offset < 0 || offset + count > size) return undefined;
    covered.fill(1, offset, offset + count);
  }
  return covered.every((c) => c === 1) ? data : undefined;
}

function mentions(s: Stmt, data: Var): boolean {
  let found = false;
  forEachExpr(s, (e) => {
    if (e.kind === "Var" && e === data) found = true;
    if (e.kind === "BufferLoad" && e.buffer.data === data) found = true;
  });
  forEachStmt(s, (x) => {
    if (x.kind === "BufferStore" && x.buffer.data === data) found = true;
  });
  return found;
}

/** Whether `call` is a wgmma taking scale-d that writes all `size` registers of `data` from register 0. */
function writesWhole(call: Call, data: Var, size: number): boolean {
  const operands = wgmmaMmaOperands(call.op);
  if (operands === undefined || WGMMA_SCALE_D_ARG[call.op] === undefined || call.args.length !== WGMMA_SCALE_D_ARG[call.op]) return false;
  const [c, offset] = [call.args[operands.accumulator], call.args[operands.accumulator + 1]];
  const shape = call.args[0]?.kind === "StringImm" ? /^m64n(\d+)k\d+$/.exec(call.args[0].value) : null;
  const registers = shape === null ? Number.NaN : Number(shape[1]) / 2;
  // It reads no other operand from the accumulator (its A registers are elsewhere).
  const alsoReads = call.args.some((a, i) => i !== operands.accumulator && a === data);
  return c === data && offset?.kind === "IntImm" && offset.value === 0 && registers === size && !alsoReads;
}

/**
 * The first statement after the fill (in `rest`, through scopes) that mentions `data`, when it is a
 * wgmma that can start from zero (an Evaluate of its call).
 */
function firstUse(rest: readonly Stmt[], data: Var, size: number): Stmt | undefined | "none" {
  for (const s of rest) {
    if (!mentions(s, data)) continue;
    if (s.kind === "Evaluate") return s.value.kind === "Call" && writesWhole(s.value, data, size) ? s : undefined;
    if (!SCOPES.has(s.kind)) return undefined;
    const inner = s.kind === "SeqStmt" ? s.seq : [(s as { body: Stmt }).body];
    const found = firstUse(inner, data, size);
    return found === "none" ? undefined : found;
  }
  return "none";
}

class ZeroFillFolder extends IRMutator {
  /** wgmma statements to give scale-d 0, by identity. */
  private readonly zeroD = new Set<Stmt>();

  constructor(private readonly sizes: ReadonlyMap<Var, number>) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "Evaluate" && this.zeroD.has(s) && s.value.kind === "Call") return { ...s, value: { ...s.value, args: [...s.value.args, intImm(0)] } };
    if (s.kind !== "SeqStmt") return super.visitStmt(s);
    const kept: Stmt[] = [];
    for (const [i, x] of s.seq.entries()) {
      const data = wholeZeroFill(x, this.sizes);
      const use = data === undefined ? undefined : firstUse(s.seq.slice(i + 1), data, this.sizes.get(data)!);
      if (use !== undefined && use !== "none") this.zeroD.add(use);
      else kept.push(x);
    }
    const visited = kept.map((x) => this.visitStmt(x));
    return { ...s, seq: visited };
  }
}

export function foldWgmmaZeroFill(func: PrimFunc): PrimFunc {
  const sizes = new Map<Var, number>();
  forEachStmt(func.body, (s) => {
    if (s.kind === "Allocate") {
      const size = constantSize(s.buffer);
      if (size !== undefined) sizes.set(s.buffer.data, size);
    }
  });
  let any = false;
  forEachExpr(func.body, (e: PrimExpr) => {
    if (e.kind === "Call" && WGMMA_SCALE_D_ARG[e.op] !== undefined) any = true;
  });
  if (!any) return func;
  const body = new ZeroFillFolder(sizes).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const foldWgmmaZeroFillPass: Pass = cudaPass(PASS, (func) => foldWgmmaZeroFill(func));

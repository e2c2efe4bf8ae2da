/**
 * Swizzled shared layouts (`Schedule.swizzleLayout`, TVM's permuted layout and its
 * `InjectPermutedLayout` pass), in two passes:
 *
 * - `planBufferSwizzle` (after compactBufferAllocation and injectSoftwarePipeline, while blocks
 *   exist): moves each block's `buffer_swizzle` annotation to the function attribute
 *   `tessera.buffer_swizzle` as `[data var, tile shape, index map]` (`"permuted"` becomes
 *   `sharedSwizzle` of the compacted tile's rows), after checking the map
 *   permutes the compacted tile: the buffer's last dimensions, as many as the map takes (leading
 *   ones are the pipeline's versions of the tile, each swizzled alike).
 * - `injectBufferSwizzle` (after threadSync, before injectPTXAsyncCopy, on flat buffers): every
 *   access to such a buffer's storage goes through the map. A flat offset e (a software pipeline may
 *   have stacked stages of the tile) becomes `e - e % T + flat(map(digits(e % T)))`, T the tile's
 *   elements: scalar loads and stores, vector ones (a stride-1 Ramp whose base is aligned to its
 *   lanes, which the map keeps together) and the row addresses of `ptx_legacy.ldmatrix` (16 bytes
 *   per lane, kept together by the map) and the operand pointers of `wgmma`, which swizzle in
 *   hardware from the region's first element (see `wgmma` below), and the destinations of TMA boxes
 *   (`tmaBox`). Barrier planning (threadSync) saw the logical offsets, the
 *   same dependencies since the map permutes each tile. Any other pointer into the buffer is a
 *   LoweringError: it would read the swizzled storage as plain.
 */
import {
  Analyzer,
  type AttrValue,
  CP_ASYNC_BULK_TENSOR_2D,
  type Block,
  type Buffer,
  type BufferLoad,
  type BufferStore,
  type Call,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  bytesOf,
  eq,
  floordiv,
  floormod,
  intImm,
  mul,
  printExpr,
  ramp,
  sub,
  substitute,
} from "@tessera/ir";
import {
  BUFFER_SWIZZLE,
  PERMUTED_LAYOUT,
  SwizzleLayoutError,
  checkSwizzle,
  indexMapFromAttr,
  permutedLayoutMap,
  swizzleRunsContiguous,
} from "@tessera/schedule";
import { LoweringError } from "../errors.js";
import { wgmmaMmaOperands } from "../util/warp-operands.js";
import type { Pass } from "../pass.js";

/** The function attribute that carries the swizzles from planBufferSwizzle to injectBufferSwizzle. */
export const SWIZZLE_ATTR = "tessera.buffer_swizzle";

type PlannedSwizzle = readonly [data: Var, shape: readonly number[], map: AttrValue];

class SwizzlePlanner extends IRMutator {
  readonly planned: PlannedSwizzle[] = [];

  override visitBlock(b: Block): Block {
    const visited = super.visitBlock(b);
    const entries = visited.annotations[BUFFER_SWIZZLE];
    if (entries === undefined) return visited;
    for (const [index, requested] of entries as readonly (readonly [number, AttrValue])[]) {
      const buffer = visited.writes[index]?.buffer;
      if (buffer === undefined) throw new LoweringError("planBufferSwizzle", `block ${b.name} swizzles its write ${index}, which it does not have`);
      const map = requested === PERMUTED_LAYOUT ? this.permuted(buffer) : requested;
      const arity = indexMapFromAttr(map).params.length;
      const shape = buffer.shape.slice(-arity).map((d) => (d.kind === "IntImm" ? d.value : Number.NaN));
      const where = `the compacted buffer ${buffer.name} of shape [${buffer.shape.map((d) => printExpr(d)).join(", ")}]`;
      if (shape.some(Number.isNaN)) throw new LoweringError("planBufferSwizzle", `${where} has a symbolic shape; only constant tiles can be swizzled`);
      try {
        checkSwizzle(where, shape, map);
      } catch (e) {
        if (e instanceof SwizzleLayoutError) throw new LoweringError("planBufferSwizzle", e.detail);
        throw e;
      }
      this.planned.push([buffer.data, shape, map]);
    }
    const { [BUFFER_SWIZZLE]: _, ...annotations } = visited.annotations;
    return { ...visited, annotations };
  }

  /** The permuted layout's map for the compacted tile `buffer` (its last two dimensions). */
  private permuted(buffer: Buffer): AttrValue {
    const row = buffer.shape.at(-1);
    if (row?.kind !== "IntImm") throw new LoweringError("planBufferSwizzle", `the permuted layout of ${buffer.name} needs a constant row length`);
    try {
      return permutedLayoutMap(row.value, bytesOf(buffer.dtype));
    } catch (e) {
      if (e instanceof RangeError) throw new LoweringError("planBufferSwizzle", `the permuted layout of ${buffer.name}: ${e.message}`);
      throw e;
    }
  }
}

export const planBufferSwizzlePass: Pass = {
  name: "planBufferSwizzle",
  run(func: PrimFunc): PrimFunc {
    const planner = new SwizzlePlanner();
    const body = planner.visitStmt(func.body);
    if (planner.planned.length === 0) return func;
    return { ...func, body, attrs: { ...func.attrs, [SWIZZLE_ATTR]: planner.planned as unknown as AttrValue } };
  },
};

const PASS = "injectBufferSwizzle";

/** One swizzled storage: its tile's shape and the map as IR over fresh digit variables. */
interface Swizzle {
  readonly shape: readonly number[];
  readonly mapAttr: AttrValue;
  readonly params: readonly Var[];
  readonly results: readonly PrimExpr[];
  readonly elements: number;
  readonly name: string;
}

class SwizzleInjector extends IRMutator {
  private readonly analyzer = new Analyzer();
  private readonly contiguous = new Map<string, boolean>();

  constructor(private readonly swizzles: ReadonlyMap<Var, Swizzle>) {
    super();
  }

  /** The physical offset of logical flat offset `e` in `s`'s storage. */
  private physical(s: Swizzle, e: PrimExpr): PrimExpr {
    const local = floormod(e, s.elements);
    const binding = new Map<Var, PrimExpr>();
    let inner = 1;
    for (let d = s.shape.length - 1; d >= 0; d--) {
      binding.set(s.params[d]!, d === 0 ? floordiv(local, inner) : floormod(floordiv(local, inner), s.shape[d]!));
      inner *= s.shape[d]!;
    }
    let flat: PrimExpr = intImm(0, e.dtype);
    inner = 1;
    for (let d = s.shape.length - 1; d >= 0; d--) {
      flat = add(flat, mul(substitute(s.results[d]!, binding), inner));
      inner *= s.shape[d]!;
    }
    return this.analyzer.simplify(add(sub(e, local), flat));
  }

  private requireRuns(s: Swizzle, run: number, what: string): void {
    const key = `${s.name}/${run}`;
    if (!this.contiguous.has(key)) this.contiguous.set(key, swizzleRunsContiguous(s.shape, s.mapAttr, run));
    if (!this.contiguous.get(key))
      throw new LoweringError(PASS, `${what} reads or writes runs of ${run} elements of ${s.name}, which its swizzle does not keep together`);
  }

  private index(s: Swizzle, index: PrimExpr, what: string): PrimExpr {
    if (index.kind !== "Ramp") return this.physical(s, index);
    const lanes = index.lanes;
    if (index.stride.kind !== "IntImm" || index.stride.value !== 1)
      throw new LoweringError(PASS, `${what}: a strided vector access to the swizzled ${s.name} (stride ${printExpr(index.stride)})`);
    this.requireRuns(s, lanes, what);
    if (!this.analyzer.canProve(eq(floormod(index.base, lanes), 0)))
      throw new LoweringError(
        PASS,
        `${what}: the vector access to the swizzled ${s.name} at ${printExpr(index.base)} is not provably aligned to its ${lanes} lanes`,
      );
    return ramp(this.physical(s, index.base), 1, lanes);
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const visited = super.visitBufferLoad(e) as BufferLoad;
    const s = this.swizzles.get(visited.buffer.data);
    if (s === undefined) return visited;
    return { ...visited, indices: [this.index(s, visited.indices[0]!, `a load of ${visited.buffer.name}`)] };
  }

  override visitBufferStore(st: BufferStore): Stmt {
    const visited = super.visitBufferStore(st) as BufferStore;
    const s = this.swizzles.get(visited.buffer.data);
    if (s === undefined) return visited;
    return { ...visited, indices: [this.index(s, visited.indices[0]!, `a store to ${visited.buffer.name}`)] };
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "Call" && e.op === "ptx_legacy.ldmatrix") return this.ldmatrix(e);
    if (e.kind === "Call" && wgmmaMmaOperands(e.op) !== undefined) return this.wgmma(e);
    if (e.kind === "Call" && e.op === CP_ASYNC_BULK_TENSOR_2D) return this.tmaBox(e);
    if (e.kind === "Call" && e.op === "tvm_access_ptr") {
      const data = e.args[1];
      if (data?.kind === "Var" && this.swizzles.has(data))
        throw new LoweringError(
          PASS,
          `${printExpr(e)} passes a pointer into the swizzled ${this.swizzles.get(data)!.name} to a call that reads it as a plain layout`,
        );
    }
    return super.visitExpr(e);
  }

  /**
   * `wgmma_mma_async_ss(…, A_ptr, …, B_ptr, …)`: the tensor cores read A and B through matrix
   * descriptors and apply the 128-byte swizzle themselves, from the address of the region's first
   * element; that address becomes where the tile's swizzle stores that element. Whether the tile's
   * swizzle is the hardware's is the schedule's to get right (wgmmaSharedLayout); the simulator
   * reads through the hardware's swizzle, so a mismatch shows there as wrong values.
   */
  private wgmma(call: Call): PrimExpr {
    const shared = wgmmaMmaOperands(call.op)!.shared;
    const args = call.args.map((a, i) => {
      if (!shared.includes(i) || a.kind !== "Call" || a.op !== "tvm_access_ptr") return super.visitExpr(a);
      const data = a.args[1];
      const s = data?.kind === "Var" ? this.swizzles.get(data) : undefined;
      if (s === undefined) return super.visitExpr(a);
      return { ...a, args: a.args.map((x, j) => (j === 2 ? this.physical(s, x) : x)) };
    });
    return { ...call, args };
  }

  /**
   * `cp_async_bulk_tensor_2d(access_ptr(data, offset, hull, 2), …)`: the box lands from where the
   * tile stores its first element, as the TMA's swizzle places it (lowerTmaCopy checked that the
   * tile's swizzle stores the box so); the pointer then covers the box's stored elements.
   */
  private tmaBox(call: Call): PrimExpr {
    const ptr = call.args[0];
    const data = ptr?.kind === "Call" && ptr.op === "tvm_access_ptr" ? ptr.args[1] : undefined;
    const s = data?.kind === "Var" ? this.swizzles.get(data) : undefined;
    if (s === undefined || ptr?.kind !== "Call") return super.visitExpr(call);
    const [inner, outer] = [call.args[2], call.args[3]];
    if (inner?.kind !== "IntImm" || outer?.kind !== "IntImm")
      throw new LoweringError(PASS, `${printExpr(call)}: a TMA box into the swizzled ${s.name} needs a constant box`);
    const stored: Call = { ...ptr, args: ptr.args.map((x, j) => (j === 2 ? this.physical(s, x) : j === 3 ? intImm(inner.value * outer.value, x.dtype) : x)) };
    return { ...call, args: call.args.map((a, i) => (i === 0 ? stored : super.visitExpr(a))) };
  }

  /** `ldmatrix(…, access_ptr(data, offset, …), row)`: each lane's 16-byte row at offset + row, swizzled. */
  private ldmatrix(call: Call): PrimExpr {
    const ptr = call.args[5];
    const data = ptr?.kind === "Call" && ptr.op === "tvm_access_ptr" ? ptr.args[1] : undefined;
    const s = data?.kind === "Var" ? this.swizzles.get(data) : undefined;
    if (s === undefined || ptr?.kind !== "Call") return super.visitExpr(call);
    const elementBytes = call.dtype === "float32" ? 4 : 2;
    this.requireRuns(s, 16 / elementBytes, "ptx_legacy.ldmatrix");
    const row = this.physical(s, add(ptr.args[2]!, call.args[6]!));
    const base: Call = { ...ptr, args: [ptr.args[0]!, ptr.args[1]!, intImm(0, ptr.args[2]!.dtype), add(ptr.args[2]!, ptr.args[3]!), ptr.args[4]!] };
    const args = call.args.map((a, i) => (i === 5 ? base : i === 6 ? row : super.visitExpr(a)));
    return { ...call, args };
  }
}

export const injectBufferSwizzlePass: Pass = {
  name: PASS,
  run(func: PrimFunc): PrimFunc {
    const planned = func.attrs[SWIZZLE_ATTR] as readonly PlannedSwizzle[] | undefined;
    if (planned === undefined) return func;
    const swizzles = new Map<Var, Swizzle>();
    for (const [data, shape, mapAttr] of planned) {
      const map = indexMapFromAttr(mapAttr);
      swizzles.set(data, {
        shape,
        mapAttr,
        params: map.params,
        results: map.results,
        elements: shape.reduce((a, b) => a * b, 1),
        name: data.name,
      });
    }
    const body = new SwizzleInjector(swizzles).visitStmt(func.body);
    const { [SWIZZLE_ATTR]: _, ...attrs } = func.attrs;
    return { ...func, body, attrs };
  },
};

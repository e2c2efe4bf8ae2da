/**
 * `lowerTmaCopy` (sm_90): the copies of an async pipeline stage annotated `tma_copy` become TMA
 * loads. It runs after injectSoftwarePipeline and planBufferSwizzle, while blocks still exist and
 * the pipelined tiles are `[versions, rows, columns]` buffers:
 *
 *     async_commit_queue_scope(s) / tma_copy_instance(i)          # the group copying instance i
 *         async_scope: for … (threads, vector): tile[v, r, c] = A[R0 + r, C0 + c]
 *     async_wait_queue_scope(s) / async_wait_inflight_count(n) / tma_copy_instance(i)
 *         <the consumer of instance i>
 *
 * becomes
 *
 *     (one elected thread) mbarrier_arrive_expect_tx(full[v], bytes of the group's tiles)
 *                          cp_async_bulk_tensor_2d(tile + box, A.data, …, full[v])   # per box
 *     mbarrier_wait_parity(full[i % V], i // V % 2)                                  # every thread
 *         <the consumer>
 *
 * with `full` (one mbarrier per version, count 1) allocated by the pipeline's block and
 * initialised by one thread before the pipeline. Each copy must be a whole 2-D tile of a 2-D
 * global buffer: the shared indices run over every element of the tile once (enumerated) and the
 * global indices are the shared ones plus an origin that does not depend on the copy's loops. The
 * box follows from the tile's stored layout (the swizzle planned for it, or row-major): the
 * widest swizzle span whose boxes (span-wide rows, as many rows as divide the tile, at most 256)
 * land exactly where the layout stores their elements, or an unswizzled box of whole tile rows.
 *
 * The ring's reuse needs nothing here: the TMA destination is a write through `tvm_access_ptr`,
 * so threadSync puts a barrier between the consumers' reads of a version and the next load into
 * it (and injectWgmmaSync the wgmma waits before that barrier), as for cp.async. The mbarrier
 * pointers are reads for threadSync except `mbarrier_init`'s (a write), so the barrier after the
 * initialisation is planned and arrivals and waits need none. TMA's tensor-map parameters are the
 * kernel's (`tensorMapsOf` when splitHostDevice makes it); injectBufferSwizzle points each box at
 * its first element's stored place.
 */
import {
  Analyzer,
  ASYNC_COMMIT_QUEUE_SCOPE,
  ASYNC_SCOPE,
  ASYNC_WAIT_INFLIGHT_COUNT,
  ASYNC_WAIT_QUEUE_SCOPE,
  type AttrStmt,
  type AttrValue,
  type Block,
  type BlockRealize,
  type Buffer,
  CP_ASYNC_BULK_TENSOR_2D,
  type For,
  IRMutator,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_INIT,
  MBARRIER_WAIT_PARITY,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  TMA_COPY,
  TMA_COPY_INSTANCE,
  type TmaSwizzle,
  type Var,
  add,
  and,
  annotationFlag,
  bytesOf,
  call,
  declBuffer,
  eq,
  evalIntExpr,
  evaluate,
  floordiv,
  floormod,
  forEachStmt,
  forLoop,
  ifThenElseStmt,
  intImm,
  mul,
  printExpr,
  range,
  seq,
  sub,
  swizzledOffset,
  tmaDestinationAlignment,
  usesVar,
  variable,
} from "@tessera/ir";
import { indexMapFromAttr } from "@tessera/schedule";
import { LoweringError } from "../errors.js";
import { cudaPass } from "../pass.js";
import { archNumber } from "../../targets/cuda.js";
import { SWIZZLE_ATTR } from "./buffer-swizzle.js";

const PASS = "lowerTmaCopy";
/**
 * The function attribute listing the global buffers TMA loads, as `[data, [rows, columns], row
 * stride]`: flattenBuffer makes the parameters flat, and splitHostDevice encodes their tensor
 * maps from these 2-D shapes (`tmaTensorsOf`).
 */
export const TMA_TENSORS_ATTR = "tessera.tma_tensors";
/** TMA and mbarriers exist from Hopper on. */
const TMA_MIN_ARCH = 90;

/** One `tma_copy` block's copy of a tile. */
interface TileCopy {
  readonly block: string;
  readonly src: Buffer;
  readonly dst: Buffer;
  /** The pipeline version written (0 for an unversioned tile). */
  readonly version: PrimExpr;
  readonly versions: number;
  readonly rows: number;
  readonly cols: number;
  /** The global row and column of the tile's element (0, 0). */
  readonly origin: readonly [PrimExpr, PrimExpr];
  /** The copy nest's thread-bound loops, outermost first (one thread of them issues the loads). */
  readonly threads: readonly For[];
  readonly box: TmaBox;
}

interface TmaBox {
  readonly swizzle: TmaSwizzle;
  readonly rows: number;
  readonly cols: number;
}

type PlannedSwizzle = readonly [Var, readonly number[], unknown];

export const lowerTmaCopyPass = cudaPass(PASS, (func, ctx) => {
  const blocks = tmaCopyBlocks(func.body);
  if (blocks.size === 0) return func;
  if (archNumber(ctx.target) < TMA_MIN_ARCH)
    throw new LoweringError(
      PASS,
      `block ${[...blocks][0]} asks for TMA loads (tma_copy), which need sm_90 or newer; target ${ctx.target.name} is ${ctx.target.arch}`,
    );
  const lowering = new TmaLowering(func);
  const body = lowering.visitStmt(func.body);
  const missed = [...blocks].filter((b) => !lowering.lowered.has(b));
  if (missed.length > 0)
    throw new LoweringError(
      PASS,
      `block ${missed[0]} is annotated tma_copy but is not a producer of an async stage of a software pipeline ` +
        `(software_pipeline_async_stages); TMA loads complete on mbarriers that the stage's consumers wait for`,
    );
  const tensors = [...lowering.sources.values()].map((b) => [b.data, b.shape.map((d) => (d.kind === "IntImm" ? d.value : -1)), rowStride(b)]);
  return { ...func, body, attrs: { ...func.attrs, [TMA_TENSORS_ATTR]: tensors as unknown as AttrValue } };
});

function rowStride(b: Buffer): number {
  const s = b.strides.length === 2 ? b.strides[0] : b.shape[1];
  if (s?.kind !== "IntImm") throw new LoweringError(PASS, `TMA loads of ${b.name} need its constant 2-D shape and strides`);
  return s.value;
}

/** The 2-D views of the buffers a function's TMA loads read, by data variable (see TMA_TENSORS_ATTR). */
export function tmaTensorsOf(func: PrimFunc): Map<Var, Buffer> {
  const listed = func.attrs[TMA_TENSORS_ATTR] as readonly (readonly [Var, readonly number[], number])[] | undefined;
  const out = new Map<Var, Buffer>();
  for (const [data, shape, stride] of listed ?? []) {
    const param = [...func.bufferMap.values()].find((b) => b.data === data);
    if (param !== undefined) out.set(data, declBuffer(param.name, shape, param.dtype, { data, strides: [stride, 1], scope: param.scope }));
  }
  return out;
}

/** Names of the blocks annotated `tma_copy` = 1. */
function tmaCopyBlocks(body: Stmt): Set<string> {
  const out = new Set<string>();
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize" && isTmaCopy(s.block)) out.add(s.block.name);
  });
  return out;
}

function isTmaCopy(b: Block): boolean {
  const flag = b.annotations[TMA_COPY];
  return flag !== undefined && annotationFlag(flag) === true;
}

/** The full mbarriers of one pipeline's TMA stage. */
interface StageBarriers {
  readonly bars: Buffer;
  readonly versions: number;
  readonly threads: readonly For[];
}

class TmaLowering extends IRMutator {
  readonly lowered = new Set<string>();
  /** The global buffers loaded, by data variable. */
  readonly sources = new Map<Var, Buffer>();
  private readonly analyzer = new Analyzer();
  private readonly swizzles: ReadonlyMap<Var, PlannedSwizzle>;
  /** The TMA stages of the pipelines being rewritten, innermost last. */
  private readonly pipelines: Map<number, StageBarriers>[] = [];

  constructor(func: PrimFunc) {
    super();
    const planned = (func.attrs[SWIZZLE_ATTR] as readonly PlannedSwizzle[] | undefined) ?? [];
    this.swizzles = new Map(planned.map((p) => [p[0], p]));
  }

  /** A block allocating the tiles of TMA commit groups (the pipeline's): its barriers, initialised before its body. */
  override visitBlock(b: Block): Block {
    const groups = commitGroupsIn(b.body).filter((g) => g.copies.some((c) => b.allocBuffers.some((buf) => buf.data === storedBuffer(c)?.data)));
    if (groups.length === 0) return super.visitBlock(b);
    const stages = new Map<number, StageBarriers>();
    for (const g of groups) {
      const copies = g.copies.map((c) => this.analyse(c));
      const versions = copies[0]!.versions;
      const odd = copies.find((c) => c.versions !== versions);
      if (odd !== undefined)
        throw new LoweringError(
          PASS,
          `blocks ${copies[0]!.block} and ${odd.block} share a TMA stage but their tiles have ${versions} and ${odd.versions} pipeline versions`,
        );
      if (!stages.has(g.stage)) {
        const bars = declBuffer(`${copies[0]!.dst.name}_tma_full`, [versions], "uint64", { scope: "shared" });
        stages.set(g.stage, { bars, versions, threads: copies[0]!.threads });
      }
    }
    this.pipelines.push(stages);
    const body = this.visitStmt(b.body);
    this.pipelines.pop();
    const inits = [...stages.values()].map((s) => {
      const i = variable("i");
      return elected(s.threads, forLoop(i, s.versions, evaluate(call("void", MBARRIER_INIT, [barrier(s.bars, i, 2), 1]))));
    });
    return { ...b, body: seq([...inits, body]), allocBuffers: [...b.allocBuffers, ...[...stages.values()].map((s) => s.bars)] };
  }

  /** Loop ranges let the analyzer see a pipeline's version `k` (k < V) as the instance's `k % V`. */
  override visitFor(s: For): Stmt {
    this.analyzer.bind(s.loopVar, range(s.min, s.extent), true);
    return super.visitFor(s);
  }

  override visitStmt(s: Stmt): Stmt {
    if (s.kind !== "AttrStmt") return super.visitStmt(s);
    if (s.key === ASYNC_COMMIT_QUEUE_SCOPE && s.body.kind === "AttrStmt" && s.body.key === TMA_COPY_INSTANCE) return this.issue(s, s.body);
    const count = s.key === ASYNC_WAIT_QUEUE_SCOPE && s.body.kind === "AttrStmt" && s.body.key === ASYNC_WAIT_INFLIGHT_COUNT ? s.body : undefined;
    if (count?.body.kind === "AttrStmt" && count.body.key === TMA_COPY_INSTANCE) return this.wait(s, count.body);
    return super.visitStmt(s);
  }

  private stage(scope: AttrStmt): StageBarriers {
    const stage = scope.value.kind === "IntImm" ? scope.value.value : Number.NaN;
    const found = this.pipelines.at(-1)?.get(stage);
    if (found === undefined) throw new LoweringError(PASS, `a TMA ${scope.key} of stage ${printExpr(scope.value)} outside the block that allocates its tiles`);
    return found;
  }

  /** The commit group of instance `marker.value`: the elected thread arms the version's barrier and issues every box. */
  private issue(scope: AttrStmt, marker: AttrStmt): Stmt {
    const stage = this.stage(scope);
    const copies = copiesOf(marker.body).map((c) => this.analyse(c));
    const slot = this.analyzer.simplify(copies[0]!.version);
    const slotOfInstance = floormod(marker.value, stage.versions);
    for (const c of copies)
      if (!this.analyzer.canProve(eq(c.version, slot)) || !this.analyzer.canProve(eq(c.version, slotOfInstance)))
        throw new LoweringError(PASS, `block ${c.block} writes version ${printExpr(c.version)} of ${c.dst.name}, not the group's ${printExpr(slotOfInstance)}`);
    const bar = barrier(stage.bars, slot, 1);
    const bytes = copies.reduce((n, c) => n + c.rows * c.cols * bytesOf(c.dst.dtype), 0);
    const loads: Stmt[] = [evaluate(call("void", MBARRIER_ARRIVE_EXPECT_TX, [bar, bytes]))];
    for (const c of copies) {
      this.lowered.add(c.block);
      this.sources.set(c.src.data, c.src);
      const tileBase = mul(c.version, c.rows * c.cols);
      for (let r = 0; r < c.rows; r += c.box.rows)
        for (let col = 0; col < c.cols; col += c.box.cols) {
          // The box's logical hull (threadSync's view); injectBufferSwizzle makes it the stored box.
          const dst = call("handle", "tvm_access_ptr", [
            call(c.dst.dtype, "type_annotation", []),
            c.dst.data,
            this.analyzer.simplify(add(tileBase, r * c.cols + col)),
            (c.box.rows - 1) * c.cols + c.box.cols,
            2,
          ]);
          const [row0, col0] = c.origin;
          const args = [
            dst,
            c.src.data,
            c.box.cols,
            c.box.rows,
            c.box.swizzle,
            this.analyzer.simplify(add(col0, col)),
            this.analyzer.simplify(add(row0, r)),
            bar,
          ];
          loads.push(evaluate(call("void", CP_ASYNC_BULK_TENSOR_2D, args)));
        }
    }
    return elected(copies[0]!.threads, seq(loads));
  }

  /** Every thread waits for the phase of the instance its consumer reads. */
  private wait(scope: AttrStmt, marker: AttrStmt): Stmt {
    const stage = this.stage(scope);
    const instance = marker.value;
    const bar = barrier(stage.bars, this.analyzer.simplify(floormod(instance, stage.versions)), 1);
    const parity = this.analyzer.simplify(floormod(floordiv(instance, stage.versions), 2));
    return seq([evaluate(call("void", MBARRIER_WAIT_PARITY, [bar, parity])), this.visitStmt(marker.body)]);
  }

  private readonly analysed = new Map<RawCopy, TileCopy>();

  private analyse(raw: RawCopy): TileCopy {
    let out = this.analysed.get(raw);
    if (out === undefined) {
      out = analyseCopy(raw, this.analyzer, (data) => this.swizzles.get(data));
      this.analysed.set(raw, out);
    }
    return out;
  }
}

/** One `async_scope` of a TMA group: its loops down to the copy block. */
interface RawCopy {
  readonly loops: readonly For[];
  readonly realize: BlockRealize;
}

/** The buffer a copy stores into, when its block is one store. */
function storedBuffer(raw: RawCopy): Buffer | undefined {
  const body = raw.realize.block.body;
  return body.kind === "BufferStore" ? body.buffer : undefined;
}

/** The commit groups (stage, copies) marked for TMA below `body`. */
function commitGroupsIn(body: Stmt): { stage: number; copies: RawCopy[] }[] {
  const out: { stage: number; copies: RawCopy[] }[] = [];
  forEachStmt(body, (s) => {
    if (s.kind !== "AttrStmt" || s.key !== ASYNC_COMMIT_QUEUE_SCOPE || s.body.kind !== "AttrStmt" || s.body.key !== TMA_COPY_INSTANCE) return true;
    out.push({ stage: s.value.kind === "IntImm" ? s.value.value : Number.NaN, copies: copiesOf(s.body.body) });
    return false;
  });
  return out;
}

const rawCopies = new WeakMap<Stmt, RawCopy[]>();

/** The copies of a TMA commit group (memoised per group body, so both walks see the same objects). */
function copiesOf(group: Stmt): RawCopy[] {
  let out = rawCopies.get(group);
  if (out !== undefined) return out;
  out = [];
  const scopes = group.kind === "SeqStmt" ? group.seq : [group];
  for (const scope of scopes) {
    if (scope.kind !== "AttrStmt" || scope.key !== ASYNC_SCOPE)
      throw new LoweringError(
        PASS,
        `a TMA stage's commit group holds a statement that is no async copy: ${scope.kind}; a stage's producers are all tma_copy blocks or none`,
      );
    const loops: For[] = [];
    let s: Stmt = scope.body;
    while (s.kind === "For") {
      loops.push(s);
      s = s.body;
    }
    if (s.kind !== "BlockRealize" || !isTmaCopy(s.block)) {
      const name = s.kind === "BlockRealize" ? `block ${s.block.name}` : `a ${s.kind}`;
      throw new LoweringError(PASS, `${name} is an async copy of a stage whose other copies are tma_copy blocks; annotate every producer of the stage or none`);
    }
    out.push({ loops, realize: s });
  }
  rawCopies.set(group, out);
  return out;
}

/** Checks a copy is a whole tile of a 2-D global buffer and finds its TMA box. */
function analyseCopy(raw: RawCopy, analyzer: Analyzer, swizzleOf: (data: Var) => PlannedSwizzle | undefined): TileCopy {
  const b = raw.realize.block;
  const fail = (why: string): never => {
    throw new LoweringError(PASS, `block ${b.name} (tma_copy): ${why}`);
  };
  if (raw.realize.predicate.kind !== "IntImm" || raw.realize.predicate.value !== 1)
    fail(`its copy is guarded (${printExpr(raw.realize.predicate)}); a TMA box copies whole tiles`);
  const store = b.body;
  if (store.kind !== "BufferStore" || store.value.kind !== "BufferLoad") return fail("its body is not one store of a loaded element (dst[…] = src[…])");
  const [dst, load] = [store.buffer, store.value];
  const src = load.buffer;
  if (src.scope !== "global" || src.shape.length !== 2) fail(`it reads ${src.name} (${src.scope}, ${src.shape.length}-D); TMA loads 2-D global buffers`);
  if (dst.scope !== "shared" && dst.scope !== "shared.dyn") fail(`it writes ${dst.name} in ${dst.scope} memory; TMA loads into shared memory`);
  if (dst.strides.length > 0) fail(`its tile ${dst.name} has padded strides; TMA boxes land row after row`);
  if (dst.dtype !== src.dtype) fail(`it converts ${src.dtype} to ${dst.dtype}; TMA copies bytes`);
  const shape = dst.shape.map((d) => (d.kind === "IntImm" ? d.value : Number.NaN));
  if (shape.some(Number.isNaN) || (shape.length !== 2 && shape.length !== 3))
    fail(`its tile ${dst.name} needs a constant 2-D shape (with the pipeline's versions first)`);
  const [versions, rows, cols] = shape.length === 3 ? [shape[0]!, shape[1]!, shape[2]!] : [1, shape[0]!, shape[1]!];
  const idx = store.indices;
  const version = shape.length === 3 ? idx[0]! : intImm(0);
  const [r, c] = [idx[idx.length - 2]!, idx[idx.length - 1]!];
  const loopVars = new Set(raw.loops.map((l) => l.loopVar));
  if (usesVar(version, (v) => loopVars.has(v))) fail(`the version index ${printExpr(version)} of ${dst.name} depends on the copy's loops`);
  const origin = [analyzer.simplify(sub(load.indices[0]!, r)), analyzer.simplify(sub(load.indices[1]!, c))] as const;
  for (const o of origin)
    if (usesVar(o, (v) => loopVars.has(v)))
      fail(
        `${src.name}[${load.indices.map((i) => printExpr(i)).join(", ")}] is not ${dst.name}'s element plus a fixed origin (a non-tile access: ${printExpr(o)} varies with the copy)`,
      );
  checkCoversTile(raw.loops, r, c, rows, cols, fail);
  const box = boxOfTile(dst, rows, cols, swizzleOf(dst.data));
  if (typeof box === "string") return fail(box);
  const threads = raw.loops.filter((l) => l.forKind === "thread_binding" && l.threadTag?.startsWith("threadIdx") === true);
  return { block: b.name, src, dst, version, versions, rows, cols, origin, threads, box };
}

/** The copy's loops (constant extents) write every element of the rows × cols tile exactly once. */
function checkCoversTile(loops: readonly For[], r: PrimExpr, c: PrimExpr, rows: number, cols: number, fail: (why: string) => never): void {
  const extents = loops.map((l) => (l.extent.kind === "IntImm" && l.min.kind === "IntImm" ? l.extent.value : Number.NaN));
  const points = extents.reduce((a, b) => a * b, 1);
  if (Number.isNaN(points)) fail("a loop of its copy has a symbolic range");
  if (points !== rows * cols) fail(`its loops run ${points} times for a ${rows}×${cols} tile; a TMA copy is one whole tile`);
  const seen = new Uint8Array(rows * cols);
  const env = new Map<Var, number>();
  const at = loops.map((l) => (l.min.kind === "IntImm" ? l.min.value : 0));
  for (let n = 0; n < points; n++) {
    loops.forEach((l, i) => env.set(l.loopVar, at[i]!));
    const [i, j] = [evalIntExpr(r, env), evalIntExpr(c, env)];
    if (i === undefined || j === undefined) fail(`its tile index (${printExpr(r)}, ${printExpr(c)}) depends on more than the copy's loops`);
    if (i! < 0 || i! >= rows || j! < 0 || j! >= cols || seen[i! * cols + j!] === 1)
      fail(`its loops do not write each element of the ${rows}×${cols} tile once (a non-affine or non-tile access)`);
    seen[i! * cols + j!] = 1;
    for (let d = loops.length - 1; d >= 0; d--) {
      const l = loops[d]!;
      const min = l.min.kind === "IntImm" ? l.min.value : 0;
      if (++at[d]! < min + extents[d]!) break;
      at[d] = min;
    }
  }
}

/** Boxes found, by tile shape, element size and planned swizzle: a search lowers the same layouts again and again. */
const boxCache = new Map<string, TmaBox | string>();
const BOX_CACHE_ENTRIES = 256;

/** The TMA box of a tile of `dst` stored with `swizzle` (or a sentence saying why none fits). */
function boxOfTile(dst: Buffer, rows: number, cols: number, swizzle: PlannedSwizzle | undefined): TmaBox | string {
  const key = `${rows}x${cols}x${bytesOf(dst.dtype)}:${swizzle === undefined ? "row-major" : JSON.stringify(swizzle.slice(1))}`;
  let box = boxCache.get(key);
  if (box === undefined) {
    box = boxOfLayout(storedLayout(dst, rows, cols, swizzle), rows, cols, bytesOf(dst.dtype));
    if (boxCache.size >= BOX_CACHE_ENTRIES) boxCache.delete(boxCache.keys().next().value!);
    boxCache.set(key, box);
  }
  return box;
}

/** Where the tile stores element (r, c): offsets from the tile's start, row-major over the tile. */
function storedLayout(dst: Buffer, rows: number, cols: number, swizzle: PlannedSwizzle | undefined): Int32Array {
  const out = new Int32Array(rows * cols);
  if (swizzle === undefined) {
    for (let n = 0; n < out.length; n++) out[n] = n;
    return out;
  }
  const [, shape, mapAttr] = swizzle;
  if (shape.length !== 2 || shape[0] !== rows || shape[1] !== cols)
    throw new LoweringError(PASS, `the swizzle of ${dst.name} is planned for a ${shape.join("×")} tile, not its ${rows}×${cols} one`);
  const map = indexMapFromAttr(mapAttr as Parameters<typeof indexMapFromAttr>[0]);
  const env = new Map<Var, number>();
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      env.set(map.params[0]!, i);
      env.set(map.params[1]!, j);
      out[i * cols + j] = evalIntExpr(map.results[0]!, env)! * cols + evalIntExpr(map.results[1]!, env)!;
    }
  return out;
}

/**
 * The TMA box that fills a tile stored as `stored` says: the widest swizzle span (128, 64, 32
 * bytes) whose boxes of span-wide rows land where the layout stores them — the most rows that
 * divide the tile, at most 256 — else whole unswizzled rows; a sentence saying why not otherwise.
 */
export function boxOfLayout(stored: Int32Array, rows: number, cols: number, elementBytes: number): TmaBox | string {
  const candidates: TmaSwizzle[] = [128, 64, 32, 0];
  for (const swizzle of candidates) {
    const width = swizzle === 0 ? cols : swizzle / elementBytes;
    if (!Number.isInteger(width) || cols % width !== 0 || width > 256 || (width * elementBytes) % 16 !== 0) continue;
    for (let height = Math.min(rows, 256); height >= 1; height--) {
      if (rows % height !== 0) continue;
      if (boxesLand(stored, rows, cols, elementBytes, { swizzle, rows: height, cols: width })) return { swizzle, rows: height, cols: width };
    }
  }
  return `no TMA box lands as its ${rows}×${cols} tile is stored: neither a 128/64/32-byte swizzled box (its rows the swizzle span) nor whole unswizzled rows (at most 256 columns of 16-byte multiples) matches the tile's layout`;
}

function boxesLand(stored: Int32Array, rows: number, cols: number, elementBytes: number, box: TmaBox): boolean {
  const align = tmaDestinationAlignment(box.swizzle) / elementBytes;
  if ((rows * cols) % align !== 0) return false;
  for (let r0 = 0; r0 < rows; r0 += box.rows)
    for (let c0 = 0; c0 < cols; c0 += box.cols) {
      const base = stored[r0 * cols + c0]!;
      if (base % align !== 0) return false;
      for (let i = 0; i < box.rows; i++)
        for (let j = 0; j < box.cols; j++) {
          const landed = base + swizzledOffset((i * box.cols + j) * elementBytes, box.swizzle) / elementBytes;
          if (stored[(r0 + i) * cols + c0 + j] !== landed) return false;
        }
    }
  return true;
}

/** `T.tvm_access_ptr` to mbarrier `i` of `bars`: `mask` 2 (initialised, a write for threadSync) or 1 (arrived on or waited for). */
function barrier(bars: Buffer, i: PrimExpr | Var, mask: 1 | 2): PrimExpr {
  return call("handle", "tvm_access_ptr", [call("uint64", "type_annotation", []), bars.data, i, 1, mask]);
}

/** `body` run by the thread whose copy-loop thread indices are all 0, under fresh loops bound as the copy's. */
function elected(threads: readonly For[], body: Stmt): Stmt {
  const fresh = threads.map((l) => variable(l.loopVar.name, l.loopVar.dtype));
  const first = fresh.map((v) => eq(v, 0)).reduce<PrimExpr | undefined>((a, e) => (a === undefined ? e : and(a, e)), undefined);
  let s: Stmt = first === undefined ? body : ifThenElseStmt(first, body);
  for (let i = threads.length - 1; i >= 0; i--) s = forLoop(fresh[i]!, threads[i]!.extent, s, { kind: "thread_binding", threadTag: threads[i]!.threadTag! });
  return s;
}

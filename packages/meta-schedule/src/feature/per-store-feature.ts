/**
 * Per-store features (TVM's `per_store_feature.cc`, adapted to the scheduled TensorIR and to the
 * GPU knobs that decide GEMM speed): one row per BufferStore of the candidate, laid out as
 * `featureNames()` lists. Counts are weighted by the loop trips around the store and scaled by
 * `slog`. See feature-names.ts for the groups.
 */
import { type Buffer, type PrimFunc, type Var, bytesOf, forEachExpr } from "@tessera/ir";
import { type BufferLayout, bufferLayouts, isOutsideAllocation } from "../store-analysis/buffer-layout.js";
import {
  ARITH_INTENSITY_SAMPLES,
  BUFFERS_PER_STORE,
  BUFFER_FEATURES,
  CACHE_LINE_BYTES,
  LOOP_POSITIONS,
  type LoopPosition,
  PER_STORE_FEATURE_LENGTH,
} from "./feature-names.js";
import { type CompiledBounds, type LoopEnv, compileBounds, lastUpperBound } from "../store-analysis/index-eval.js";
import { NUM_ARITH_CLASSES, countOps } from "./op-counts.js";
import { slog } from "./slog.js";
import { type Access, type KernelInfo, type LoopInfo, type StoreSite, collectStoreSites } from "../store-analysis/store-sites.js";

interface KernelSummary {
  readonly threads: number;
  readonly vthreads: number;
  readonly sharedBytes: number;
  readonly localBytes: number;
  readonly paddingBytes: number;
}

function allocatedBytes(layout: BufferLayout): number {
  return layout.elements * layout.versions * bytesOf(layout.buffer.dtype);
}

function summarizeKernel(kernel: KernelInfo, layouts: ReadonlyMap<Buffer, BufferLayout>): KernelSummary {
  const ext = (tag: string) => kernel.threadExtents.get(tag) ?? 1;
  const buffers = new Set<Buffer>();
  for (const site of kernel.sites) for (const a of site.accesses) buffers.add(a.buffer);
  let sharedBytes = 0;
  let localBytes = 0;
  let paddingBytes = 0;
  for (const b of buffers) {
    const layout = layouts.get(b);
    if (layout === undefined || !layout.allocated) continue;
    if (b.scope === "shared" || b.scope === "shared.dyn") {
      sharedBytes += allocatedBytes(layout);
      paddingBytes += layout.paddingElements * layout.versions * bytesOf(b.dtype);
    } else localBytes += allocatedBytes(layout);
  }
  let vthreads = 1;
  for (const [tag, e] of kernel.threadExtents) if (tag.startsWith("vthread")) vthreads *= e;
  return { threads: ext("threadIdx.x") * ext("threadIdx.y") * ext("threadIdx.z"), vthreads, sharedBytes, localBytes, paddingBytes };
}

/** What the row records of one buffer touched by a store (its accesses merged). */
interface BufferStats {
  readonly buffer: Buffer;
  readonly accesses: readonly Access[];
  /** The accesses' indices compiled against the row's loop environment. */
  readonly compiled: readonly (readonly CompiledBounds[])[];
  readonly layout: BufferLayout;
  readonly elemBytes: number;
  /** Elements of the region touched with loops `level..` relaxed (index `level`, 0..n). */
  readonly footprint: readonly number[];
  readonly lastDimExtent: number;
  readonly strides: readonly number[];
  readonly usedVars: ReadonlySet<Var>;
  readonly bytes: number;
  readonly lines: number;
  readonly uniqueLines: number;
}

/** Sets each loop of `loops` to its full range from `level` inward and to 0 outside. */
function relaxFrom(env: LoopEnv, loops: readonly LoopInfo[], level: number): void {
  loops.forEach((l, k) => {
    const iv = env.get(l.var)!;
    iv.lo = 0;
    iv.hi = k >= level ? l.extent - 1 : 0;
  });
}

function setPoint(env: LoopEnv, loops: readonly LoopInfo[], value: (l: LoopInfo, k: number) => number): void {
  loops.forEach((l, k) => {
    const iv = env.get(l.var)!;
    iv.lo = iv.hi = value(l, k);
  });
}

function flatAddress(indices: readonly CompiledBounds[], layout: BufferLayout): number {
  let addr = 0;
  for (let d = 0; d < indices.length; d++) addr += (indices[d]!() - (layout.origin[d] ?? 0)) * (layout.strides[d] ?? 0);
  return addr;
}

/** Elements of the union of the accesses' regions, and the extent of the last dimension. */
function regionSize(accesses: readonly (readonly CompiledBounds[])[]): { elements: number; last: number } {
  const dims = accesses[0]!.length;
  let elements = 1;
  let last = 1;
  for (let d = 0; d < dims; d++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const a of accesses) {
      lo = Math.min(lo, a[d]!());
      hi = Math.max(hi, lastUpperBound());
    }
    const extent = Math.max(1, hi - lo + 1);
    elements *= extent;
    if (d === dims - 1) last = extent;
  }
  return { elements, last };
}

function bufferStats(site: StoreSite, buffer: Buffer, accesses: readonly Access[], layout: BufferLayout, env: LoopEnv): BufferStats {
  const loops = site.loops;
  const n = loops.length;
  const elemBytes = bytesOf(buffer.dtype);
  const usedVars = new Set<Var>();
  for (const a of accesses) for (const i of a.indices) forEachExpr(i, (e) => e.kind === "Var" && usedVars.add(e));
  const compiled = accesses.map((a) => a.indices.map((i) => compileBounds(i, env)));
  // A loop the accesses do not use (or of extent 1) changes neither the region nor the address.
  const moves = loops.map((l) => l.extent > 1 && usedVars.has(l.var));
  const footprint: number[] = new Array<number>(n + 1);
  const lastDims: number[] = new Array<number>(n + 1);
  for (let level = n; level >= 0; level--) {
    if (level < n && !moves[level]) {
      footprint[level] = footprint[level + 1]!;
      lastDims[level] = lastDims[level + 1]!;
      continue;
    }
    relaxFrom(env, loops, level);
    const r = regionSize(compiled);
    footprint[level] = r.elements;
    lastDims[level] = r.last;
  }
  const lastDimExtent = lastDims[0]!;
  setPoint(env, loops, () => 0);
  const primary = compiled[0]!;
  const base = flatAddress(primary, layout);
  const strides = loops.map((l, k) => {
    if (!moves[k]) return 0;
    const iv = env.get(l.var)!;
    iv.lo = iv.hi = 1;
    const s = flatAddress(primary, layout) - base;
    iv.lo = iv.hi = 0;
    return s;
  });
  const count = accesses.length;
  const bytes = site.execCount * count * elemBytes;
  let innermostMoving = -1;
  for (let k = n - 1; k >= 0; k--) {
    if (strides[k] !== 0) {
      innermostMoving = k;
      break;
    }
  }
  let lines = count;
  if (innermostMoving >= 0) {
    const l = loops[innermostMoving]!;
    const perLine = Math.min(l.extent, Math.max(1, Math.floor(CACHE_LINE_BYTES / (Math.abs(strides[innermostMoving]!) * elemBytes))));
    let moving = 1;
    for (let k = 0; k <= innermostMoving; k++) if (strides[k] !== 0) moving *= loops[k]!.extent;
    lines = (moving / perLine) * count;
  }
  const uniqueLines = (footprint[0]! / lastDimExtent) * Math.ceil((lastDimExtent * elemBytes) / CACHE_LINE_BYTES);
  return { buffer, accesses, compiled, layout, elemBytes, footprint, lastDimExtent, strides, usedVars, bytes, lines, uniqueLines };
}

/** Bytes one thread moves per access: the vectorized loop's extent when the access is contiguous along it. */
function vectorBytes(site: StoreSite, stats: BufferStats): number {
  for (let k = site.loops.length - 1; k >= 0; k--) {
    if (site.loops[k]!.kind === "vectorized") return stats.strides[k] === 1 ? site.loops[k]!.extent * stats.elemBytes : stats.elemBytes;
  }
  return stats.elemBytes;
}

/**
 * Transactions of one warp-wide access: distinct 32-byte sectors for global memory; for shared
 * memory, wavefronts (per phase of 32/16/8 threads for 4/8/16-byte accesses, the most distinct
 * words one bank serves). Registers: 0.
 */
function warpTransactions(site: StoreSite, stats: BufferStats, vecBytes: number, env: LoopEnv): number {
  const kernel = site.kernel;
  const scope = stats.buffer.scope;
  if (kernel === undefined || scope === "local" || scope === "warp") return 0;
  const tx = kernel.threadExtents.get("threadIdx.x") ?? 1;
  const ty = kernel.threadExtents.get("threadIdx.y") ?? 1;
  const tz = kernel.threadExtents.get("threadIdx.z") ?? 1;
  const lanes = Math.min(32, tx * ty * tz);
  // Each loop's coordinate per lane: the thread index of its tag (within its extent), else 0.
  const axisOf = site.loops.map((l) => (l.threadTag === "threadIdx.x" ? 0 : l.threadTag === "threadIdx.y" ? 1 : l.threadTag === "threadIdx.z" ? 2 : -1));
  const intervals = site.loops.map((l) => env.get(l.var)!);
  const addresses = new Array<number>(lanes);
  const coords = [0, 0, 0];
  for (let lane = 0; lane < lanes; lane++) {
    coords[0] = lane % tx;
    coords[1] = Math.floor(lane / tx) % ty;
    coords[2] = Math.floor(lane / (tx * ty)) % tz;
    for (let k = 0; k < intervals.length; k++) {
      const axis = axisOf[k]!;
      const v = axis < 0 ? 0 : Math.min(coords[axis]!, site.loops[k]!.extent - 1);
      intervals[k]!.lo = intervals[k]!.hi = v;
    }
    addresses[lane] = flatAddress(stats.compiled[0]!, stats.layout) * stats.elemBytes;
  }
  if (scope === "global") {
    const sectors = new Set<number>();
    for (const a of addresses) for (let s = Math.floor(a / 32); s <= Math.floor((a + vecBytes - 1) / 32); s++) sectors.add(s);
    return sectors.size;
  }
  const phase = vecBytes >= 16 ? 8 : vecBytes >= 8 ? 16 : 32;
  let wavefronts = 0;
  for (let start = 0; start < addresses.length; start += phase) {
    const banks = new Map<number, Set<number>>();
    for (let lane = start; lane < Math.min(start + phase, addresses.length); lane++) {
      const a = addresses[lane]!;
      for (let w = Math.floor(a / 4); w <= Math.floor((a + vecBytes - 1) / 4); w++) {
        const bank = ((w % 32) + 32) % 32;
        const words = banks.get(bank) ?? new Set<number>();
        words.add(w);
        banks.set(bank, words);
      }
    }
    let ways = 1;
    for (const words of banks.values()) ways = Math.max(ways, words.size);
    wavefronts += ways;
  }
  return wavefronts;
}

function loopPosition(site: StoreSite, k: number): LoopPosition {
  const role = site.roles[k];
  const firstOwn = site.loops.findIndex((l) => l.threadTag === undefined);
  const where = k === site.loops.length - 1 ? "inner" : k === firstOwn ? "outer" : "middle";
  if (role === "spatial") return `${where}_spatial`;
  if (role === "reduce") return `${where}_reduce`;
  return "mixed";
}

class RowWriter {
  readonly row = new Float64Array(PER_STORE_FEATURE_LENGTH);
  private at = 0;
  push(v: number): void {
    this.row[this.at++] = v;
  }
  /** slog-scaled count. */
  count(v: number): void {
    this.push(slog(v));
  }
  oneHot<T>(values: readonly T[], chosen: T | undefined): void {
    for (const v of values) this.push(v === chosen ? 1 : 0);
  }
  done(): Float64Array {
    if (this.at !== this.row.length) throw new Error(`per-store features: wrote ${this.at} of ${this.row.length} columns`);
    return this.row;
  }
}

function writeAnnotatedLoops(w: RowWriter, site: StoreSite, pick: (l: LoopInfo) => boolean): void {
  let num = 0;
  let prod = 1;
  let innermost = -1;
  site.loops.forEach((l, k) => {
    if (!pick(l)) return;
    num++;
    prod *= l.extent;
    innermost = k;
  });
  w.count(num);
  w.count(num === 0 ? 0 : prod);
  w.count(innermost < 0 ? 0 : site.loops[innermost]!.extent);
  w.oneHot(LOOP_POSITIONS, innermost < 0 ? "none" : loopPosition(site, innermost));
}

/** Intensity (float ops / bytes touched) of the loop nests grown outward from the store, sampled along log-ops. */
function arithIntensityCurve(site: StoreSite, floatOpsPerExec: number, stats: readonly BufferStats[]): number[] {
  const n = site.loops.length;
  const xs: number[] = [];
  const ys: number[] = [];
  let trips = 1;
  for (let level = n - 1; level >= 0; level--) {
    trips *= site.loops[level]!.extent;
    const ops = floatOpsPerExec * trips;
    let bytes = 0;
    for (const s of stats) bytes += s.footprint[level]! * s.elemBytes;
    xs.push(Math.log2(1 + ops));
    ys.push(bytes > 0 ? ops / bytes : 0);
  }
  const out = new Array<number>(ARITH_INTENSITY_SAMPLES).fill(0);
  if (xs.length === 0 || floatOpsPerExec === 0) return out;
  const total = xs[xs.length - 1]!;
  for (let k = 0; k < ARITH_INTENSITY_SAMPLES; k++) {
    const x = (total * (k + 1)) / ARITH_INTENSITY_SAMPLES;
    let i = xs.findIndex((v) => v >= x);
    if (i < 0) i = xs.length - 1;
    if (i === 0) out[k] = ys[0]!;
    else {
      const span = xs[i]! - xs[i - 1]!;
      const t = span > 0 ? (x - xs[i - 1]!) / span : 1;
      out[k] = ys[i - 1]! + t * (ys[i]! - ys[i - 1]!);
    }
  }
  return out;
}

function storeRow(site: StoreSite, layouts: ReadonlyMap<Buffer, BufferLayout>, kernels: ReadonlyMap<KernelInfo, KernelSummary>): Float64Array {
  const w = new RowWriter();
  const loops = site.loops;
  const env: LoopEnv = new Map(loops.map((l) => [l.var, { lo: 0, hi: 0 }]));

  // Group 1: arithmetic, weighted by the executions of the store.
  const ops = new Float64Array(NUM_ARITH_CLASSES);
  countOps(site.store.value, ops);
  for (const a of site.accesses) for (const i of a.indices) countOps(i, ops);
  for (const v of ops) w.count(v * site.execCount);

  // Group 2: vectorized, unrolled (explicitly or by the budget) and parallel loops.
  writeAnnotatedLoops(w, site, (l) => l.kind === "vectorized");
  writeAnnotatedLoops(w, site, (l) => l.unrolled);
  writeAnnotatedLoops(w, site, (l) => l.kind === "parallel");

  // Group 3: launch extents.
  const kernel = site.kernel;
  const ext = (tag: string) => kernel?.threadExtents.get(tag) ?? 1;
  const summary = kernel === undefined ? undefined : kernels.get(kernel);
  w.push(kernel === undefined ? 0 : 1);
  for (const tag of ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"]) w.count(ext(tag));
  w.count(summary?.vthreads ?? 1);

  // Group 4: buffer accesses, the most line-hungry buffers first.
  const byBuffer = new Map<Buffer, Access[]>();
  for (const a of site.accesses) {
    const list = byBuffer.get(a.buffer);
    if (list === undefined) byBuffer.set(a.buffer, [a]);
    else list.push(a);
  }
  const stats = [...byBuffer].map(([buffer, accesses]) => bufferStats(site, buffer, accesses, layouts.get(buffer)!, env));
  stats.sort((a, b) => b.lines - a.lines || b.footprint[0]! * b.elemBytes - a.footprint[0]! * a.elemBytes || a.buffer.name.localeCompare(b.buffer.name));
  for (let b = 0; b < BUFFERS_PER_STORE; b++) {
    const s = stats[b];
    if (s === undefined) {
      for (let k = 0; k < BUFFER_FEATURES.length; k++) w.push(0);
      continue;
    }
    const isRead = s.accesses.some((a) => !a.isWrite);
    const isWrite = s.accesses.some((a) => a.isWrite);
    w.oneHot(["read", "write", "read_write"], isRead && isWrite ? "read_write" : isWrite ? "write" : "read");
    w.count(s.bytes);
    w.count(s.footprint[0]! * s.elemBytes);
    w.count(s.lines);
    w.count(s.uniqueLines);
    let reuseLoop = -1;
    for (let k = loops.length - 1; k >= 0; k--) {
      if (loops[k]!.extent > 1 && !s.usedVars.has(loops[k]!.var)) {
        reuseLoop = k;
        break;
      }
    }
    const reuseType = reuseLoop < 0 || !isRead ? "none" : isWrite ? "serial_rw" : "loop_read";
    w.oneHot(["loop_read", "serial_rw", "none"], reuseType);
    if (reuseType === "none") {
      w.count(0);
      w.count(0);
      w.count(0);
    } else {
      let iters = 1;
      for (let k = reuseLoop + 1; k < loops.length; k++) iters *= loops[k]!.extent;
      let disBytes = 0;
      for (const o of stats) disBytes += o.footprint[reuseLoop + 1]! * o.elemBytes;
      w.count(iters);
      w.count(disBytes);
      w.count(loops[reuseLoop]!.extent);
    }
    const ct = reuseType === "none" ? 1 : loops[reuseLoop]!.extent;
    w.count(s.bytes / ct);
    w.count((s.footprint[0]! * s.elemBytes) / ct);
    w.count(s.lines / ct);
    w.count(s.uniqueLines / ct);
    let stride = 0;
    for (let k = loops.length - 1; k >= 0; k--) {
      if (s.strides[k] !== 0) {
        stride = s.strides[k]!;
        break;
      }
    }
    w.count(stride);
    const scope = s.buffer.scope;
    w.oneHot(["global", "shared", "local"], scope === "shared.dyn" ? "shared" : scope === "warp" ? "local" : scope);
    const vecBytes = vectorBytes(site, s);
    w.count(vecBytes);
    let threadStride = 0;
    for (let k = loops.length - 1; k >= 0; k--) {
      if (loops[k]!.threadTag === "threadIdx.x") {
        threadStride = s.strides[k]!;
        break;
      }
    }
    w.count(threadStride);
    w.count(warpTransactions(site, s, vecBytes, env));
  }

  // Group 5: arithmetic intensity curve.
  let floatOps = 0;
  for (let k = 0; k < 7; k++) floatOps += ops[k]! * (k === 0 ? 2 : 1);
  for (const v of arithIntensityCurve(site, floatOps, stats)) w.push(v);

  // Group 6: the allocation the store writes into.
  const layout = layouts.get(site.store.buffer);
  if (layout !== undefined && layout.allocated) {
    let outer = 1;
    for (const l of loops) if (isOutsideAllocation(l, site.store.buffer.scope, layout.commonLoops)) outer *= l.extent;
    w.count(allocatedBytes(layout));
    w.count(layout.elements * outer);
    w.count(outer);
    w.count(site.execCount / outer);
  } else for (let k = 0; k < 4; k++) w.push(0);

  // Group 7: the loop nest.
  let outerProd = 1;
  for (const l of loops) outerProd *= l.extent;
  w.count(outerProd);
  w.count(loops.length);
  w.count(site.unrollMaxStep);

  // Group 8: kernel-wide knobs.
  w.count(summary?.threads ?? 0);
  w.count(summary?.sharedBytes ?? 0);
  w.count(summary?.localBytes ?? 0);
  w.count(kernel?.minBlocksPerSM ?? 0);
  w.push(site.unrollExplicit && site.unrollMaxStep > 0 ? 1 : 0);
  let stages = 0;
  let asyncStages = 0;
  for (const p of site.pipelines) {
    stages = Math.max(stages, Math.max(...p.stages) + 1);
    asyncStages = Math.max(asyncStages, p.asyncStages);
  }
  w.count(stages);
  w.count(asyncStages);
  w.count(summary?.paddingBytes ?? 0);
  return w.done();
}

/** One feature row per BufferStore of `func` (a scheduled PrimFunc), in program order. */
export function perStoreFeatures(func: PrimFunc): Float64Array[] {
  const program = collectStoreSites(func);
  const layouts = bufferLayouts(program);
  const kernels = new Map(program.kernels.map((k) => [k, summarizeKernel(k, layouts)]));
  return program.sites.map((site) => storeRow(site, layouts, kernels));
}

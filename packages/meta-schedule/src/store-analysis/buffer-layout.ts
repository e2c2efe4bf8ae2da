/**
 * Where each buffer's elements live once lowered, estimated from the scheduled function: a
 * global buffer keeps its shape; a buffer the schedule allocates (shared, local) shrinks to the
 * region its accesses touch per allocation — per thread block for shared memory, per thread for
 * registers — as compactBufferAllocation does, with the strides padded by storage_align, one copy
 * per virtual thread when each writes its own part (InjectVirtualThread) and as many copies as a
 * software pipeline keeps in flight. A register buffer whose hull is larger than what a thread
 * touches, and whose accesses all reach their elements through the same injective affine function
 * of their loops, holds only those elements (compactBufferAllocation indexes it by the loops).
 */
import { type IteratedAccess, iteratorLayout } from "@tessera/codegen";
import { type Buffer, type For, type PrimExpr, type Var, intImm, substitute, usesVar, variable } from "@tessera/ir";
import { type LoopEnv, evalInterval } from "./index-eval.js";
import type { DimAlign, LoopInfo, ProgramSites, StoreSite } from "./store-sites.js";

export interface BufferLayout {
  readonly buffer: Buffer;
  /** Extent of each dimension (the compacted region for allocated buffers). */
  readonly extents: readonly number[];
  /** Element stride of each dimension, storage_align padding included. */
  readonly strides: readonly number[];
  /** First index of each dimension (subtracted before flattening). */
  readonly origin: readonly number[];
  /** Elements of one copy, padding included. */
  readonly elements: number;
  /** Elements added by storage_align padding (one copy). */
  readonly paddingElements: number;
  /** Copies: one per virtual thread using the buffer, times those a software pipeline keeps (1 without either). */
  readonly versions: number;
  readonly allocated: boolean;
  /** The loops every access of an allocated buffer sits in (empty for global buffers). */
  readonly commonLoops: ReadonlySet<For>;
}

/**
 * Is `loop` outside one allocation of the buffer (the same for all its elements)? Block indices
 * always are, thread indices for registers; vthreads never (they multiply a thread's storage);
 * other loops when every access of the buffer sits inside them (the allocation goes to the
 * accesses' lowest common ancestor).
 */
export function isOutsideAllocation(loop: LoopInfo, scope: string, commonLoops: ReadonlySet<For>): boolean {
  const tag = loop.threadTag;
  if (tag !== undefined) {
    if (tag.startsWith("blockIdx")) return true;
    if (tag.startsWith("threadIdx")) return scope === "local" || scope === "warp";
    return false;
  }
  return commonLoops.has(loop.loop);
}

function isVthread(loop: LoopInfo): boolean {
  return loop.threadTag?.startsWith("vthread") === true;
}

/** The loops around every access of each allocated buffer. */
function commonLoopsOf(program: ProgramSites): Map<Buffer, Set<For>> {
  const prefixes = new Map<Buffer, For[]>();
  for (const site of program.sites) {
    for (const { buffer } of site.accesses) {
      if (buffer.scope === "global") continue;
      const prefix = prefixes.get(buffer);
      if (prefix === undefined) prefixes.set(buffer, [...site.stack]);
      else {
        let k = 0;
        while (k < prefix.length && prefix[k] === site.stack[k]) k++;
        prefix.length = k;
      }
    }
  }
  return new Map([...prefixes].map(([b, p]) => [b, new Set(p)]));
}

function rowMajor(extents: readonly number[], aligns: readonly DimAlign[]): { strides: number[]; elements: number } {
  const strides = new Array<number>(extents.length).fill(1);
  let next = 1;
  for (let d = extents.length - 1; d >= 0; d--) {
    let stride = next;
    for (const a of aligns) {
      if (a.axis !== d || a.factor <= 0) continue;
      const want = ((a.offset % a.factor) + a.factor) % a.factor;
      while (stride % a.factor !== want) stride++;
    }
    strides[d] = stride;
    next = stride * extents[d]!;
  }
  return { strides, elements: extents.length === 0 ? 1 : next };
}

function safeShape(buffer: Buffer): number[] {
  return buffer.shape.map((s) => (s.kind === "IntImm" ? s.value : 1));
}

function globalLayout(buffer: Buffer): BufferLayout {
  const extents = safeShape(buffer);
  const explicit = buffer.strides.length === extents.length && buffer.strides.every((s) => s.kind === "IntImm");
  const { strides, elements } = explicit
    ? { strides: buffer.strides.map((s) => (s.kind === "IntImm" ? s.value : 1)), elements: extents.reduce((a, b) => a * b, 1) }
    : rowMajor(extents, []);
  return { buffer, extents, strides, origin: extents.map(() => 0), elements, paddingElements: 0, versions: 1, allocated: false, commonLoops: new Set() };
}

/** Copies of each buffer a software pipeline keeps: (reader's stage − writer's stage + 1), one fewer when the reader comes first. */
function pipelineVersions(sites: readonly StoreSite[]): Map<Buffer, number> {
  type Uses = { writers: Map<Buffer, Set<number>>; readers: Map<Buffer, Set<number>>; stages: readonly number[]; order: readonly number[] };
  const byLoop = new Map<object, Uses>();
  for (const site of sites) {
    for (const p of site.pipelines) {
      if (p.statement < 0) continue;
      let uses = byLoop.get(p.loop);
      if (uses === undefined) byLoop.set(p.loop, (uses = { writers: new Map(), readers: new Map(), stages: p.stages, order: p.order }));
      for (const a of site.accesses) {
        const table = a.isWrite ? uses.writers : uses.readers;
        const set = table.get(a.buffer) ?? new Set<number>();
        set.add(p.statement);
        table.set(a.buffer, set);
      }
    }
  }
  const versions = new Map<Buffer, number>();
  for (const uses of byLoop.values()) {
    for (const [buffer, writers] of uses.writers) {
      for (const w of writers) {
        for (const r of uses.readers.get(buffer) ?? []) {
          const sw = uses.stages[w];
          const sr = uses.stages[r];
          if (sw === undefined || sr === undefined || r === w) continue;
          const readerFirst = (uses.order[r] ?? r) < (uses.order[w] ?? w) ? 1 : 0;
          const v = Math.max(1, sr - sw + 1 - readerFirst);
          versions.set(buffer, Math.max(versions.get(buffer) ?? 1, v));
        }
      }
    }
  }
  return versions;
}

export function bufferLayouts(program: ProgramSites): Map<Buffer, BufferLayout> {
  const regions = new Map<Buffer, { lo: number[]; hi: number[] }>();
  const vthreadCopies = new Map<Buffer, Map<For, number>>();
  const common = commonLoopsOf(program);
  const env: LoopEnv = new Map();
  // A predicated writer (a cooperative fetch whose last round is partial) touches less than its
  // loops' range; its region counts only when nothing else bounds the buffer.
  const ordered = [...program.sites.filter((s) => !s.predicated), ...program.sites.filter((s) => s.predicated)];
  for (const site of ordered) {
    for (const access of site.accesses) {
      const scope = access.buffer.scope;
      if (scope === "global") continue;
      if (site.predicated && regions.has(access.buffer)) continue;
      env.clear();
      const commonLoops = common.get(access.buffer)!;
      for (const l of site.loops) {
        const outside = isOutsideAllocation(l, scope, commonLoops);
        env.set(l.var, outside || isVthread(l) ? { lo: 0, hi: 0 } : { lo: 0, hi: l.extent - 1 });
        // A buffer written per virtual thread gets a copy per virtual thread.
        if (!outside && isVthread(l) && access.isWrite && access.indices.some((i) => usesVar(i, (v) => v === l.var))) {
          const copies = vthreadCopies.get(access.buffer) ?? new Map<For, number>();
          copies.set(l.loop, l.extent);
          vthreadCopies.set(access.buffer, copies);
        }
      }
      let r = regions.get(access.buffer);
      if (r === undefined) {
        r = { lo: access.indices.map(() => Infinity), hi: access.indices.map(() => -Infinity) };
        regions.set(access.buffer, r);
      }
      access.indices.forEach((idx, d) => {
        const b = evalInterval(idx, env);
        r.lo[d] = Math.min(r.lo[d]!, b.lo);
        r.hi[d] = Math.max(r.hi[d]!, b.hi);
      });
    }
  }
  const versions = pipelineVersions(program.sites);
  const layouts = new Map<Buffer, BufferLayout>();
  for (const site of program.sites) {
    for (const { buffer } of site.accesses) {
      if (layouts.has(buffer)) continue;
      const r = regions.get(buffer);
      if (r === undefined) {
        layouts.set(buffer, globalLayout(buffer));
        continue;
      }
      const shape = safeShape(buffer);
      const extents = shape.map((s, d) => Math.max(1, Math.min(s, r.hi[d]! - r.lo[d]! + 1)));
      const aligns = program.dimAligns.get(buffer) ?? [];
      const { strides, elements: hullElements } = rowMajor(extents, aligns);
      const dense = extents.reduce((a, b) => a * b, 1);
      // Extents, strides and origin stay the hull's (the feature extractor's addresses are in its
      // index space); only the storage shrinks where lowering indexes the buffer by its loops.
      const byLoops = buffer.scope === "local" && aligns.length === 0 ? elementsByLoops(program, buffer, common.get(buffer)!, hullElements) : undefined;
      const elements = byLoops ?? hullElements;
      layouts.set(buffer, {
        buffer,
        extents,
        strides,
        origin: r.lo.map((v) => (Number.isFinite(v) ? v : 0)),
        elements,
        paddingElements: byLoops === undefined ? elements - dense : 0,
        versions: (versions.get(buffer) ?? 1) * [...(vthreadCopies.get(buffer)?.values() ?? [])].reduce((a, b) => a * b, 1),
        allocated: true,
        commonLoops: common.get(buffer)!,
      });
    }
  }
  return layouts;
}

/**
 * The elements of a register buffer indexed by its accesses' loops (util/iterator-layout.ts in
 * @tessera/codegen, as compactBufferAllocation does), when fewer than `hullElements`; undefined
 * otherwise. Thread indices are one variable per tag (fixed: the storage is per thread), the
 * accesses flattened over the region of all threads.
 */
function elementsByLoops(program: ProgramSites, buffer: Buffer, commonLoops: ReadonlySet<For>, hullElements: number): number | undefined {
  const threadVars = new Map<string, Var>();
  const accesses: IteratedAccess[] = [];
  const lo = buffer.shape.map(() => Infinity);
  const hi = buffer.shape.map(() => -Infinity);
  const env: LoopEnv = new Map();
  for (const site of program.sites) {
    for (const access of site.accesses) {
      if (access.buffer !== buffer) continue;
      const canonical = new Map<Var, PrimExpr>();
      const loops: IteratedAccess["loops"][number][] = [];
      env.clear();
      for (const l of site.loops) {
        const outside = isOutsideAllocation(l, buffer.scope, commonLoops);
        const tag = l.threadTag;
        env.set(l.var, outside && tag?.startsWith("threadIdx") !== true ? { lo: 0, hi: 0 } : { lo: 0, hi: l.extent - 1 });
        if (tag !== undefined) {
          if (tag.startsWith("blockIdx")) continue;
          let v = threadVars.get(tag);
          if (v === undefined) threadVars.set(tag, (v = variable(tag.replace(/\./g, "_"), l.var.dtype)));
          canonical.set(l.var, v);
        } else if (!outside) {
          loops.push({ var: l.var, min: l.loop.min, extent: l.loop.extent });
        }
      }
      access.indices.forEach((idx, d) => {
        const b = evalInterval(idx, env);
        lo[d] = Math.min(lo[d]!, b.lo);
        hi[d] = Math.max(hi[d]!, b.hi);
      });
      accesses.push({ indices: access.indices.map((i) => (canonical.size === 0 ? i : substitute(i, canonical))), loops });
    }
  }
  if (!lo.every(Number.isFinite) || !hi.every(Number.isFinite)) return undefined;
  // Indexed by its loops, the buffer holds at most the iterations of any one access: no gain (and
  // no analysis, on the hot path of feature extraction) when even the fewest reach the hull.
  const iterations = (a: IteratedAccess) => a.loops.reduce((n, l) => n * (l.extent.kind === "IntImm" ? l.extent.value : Infinity), 1);
  if (Math.min(...accesses.map(iterations)) >= hullElements) return undefined;
  const box = lo.map((l, d) => intImm(hi[d]! - l + 1, "int32"));
  const layout = iteratorLayout(box, accesses);
  const elements = layout?.shape.reduce((a, b) => a * b, 1);
  return elements !== undefined && elements < hullElements ? elements : undefined;
}

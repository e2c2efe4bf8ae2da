/**
 * The stores of a scheduled function, each with its loop nest, buffer accesses, kernel and annotations,
 * read from the scheduled TensorIR (not lowered: see docs/architecture/meta-schedule-notes.md).
 */
import {
  type AttrValue,
  type Block,
  type Buffer,
  type BufferStore,
  type For,
  type ForKind,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  annotationFlag,
  annotationInt,
  forEachExpr,
  substitute,
} from "@tessera/ir";
import { unrolledLoops } from "./unroll-plan.js";

/** Which of the block's iterators a loop feeds. */
export type LoopRole = "spatial" | "reduce" | "mixed" | "none";

export interface LoopInfo {
  readonly loop: For;
  readonly var: Var;
  /** Constant extent (1 when symbolic). */
  readonly extent: number;
  readonly kind: ForKind;
  readonly threadTag: string | undefined;
  /** Unrolled explicitly or by the unroll budget. */
  readonly unrolled: boolean;
}

export interface Access {
  readonly buffer: Buffer;
  /** Indices over loop variables. */
  readonly indices: readonly PrimExpr[];
  readonly isWrite: boolean;
}

/** A software-pipelined loop enclosing a store, and which statement of its body holds the store. */
export interface PipelinePosition {
  readonly loop: For;
  readonly stages: readonly number[];
  readonly order: readonly number[];
  readonly asyncStages: number;
  /** Index of the body statement that holds the store; -1 when the body is a single statement. */
  readonly statement: number;
}

export interface KernelInfo {
  readonly index: number;
  /** Largest extent bound to each thread tag (`blockIdx.x`, `threadIdx.y`, `vthread.x`, …). */
  readonly threadExtents: Map<string, number>;
  minBlocksPerSM: number;
  readonly sites: StoreSite[];
}

export interface StoreSite {
  readonly store: BufferStore;
  readonly blockName: string;
  /**
   * The loops that repeat the store, outermost first. Left out: a thread loop re-bound by an
   * inner loop of the same tag (one hardware index, as UnifyThreadBinding makes it), and vthread
   * loops the store does not use (virtual-thread injection repeats only what uses them).
   */
  readonly loops: readonly LoopInfo[];
  /** Every loop around the store (the allocation-placement analysis needs them all). */
  readonly stack: readonly For[];
  readonly roles: readonly LoopRole[];
  /** The reduction's initialisation (runs once per spatial point). */
  readonly isInit: boolean;
  /** The block has a `T.where` predicate (it may run on part of its loops' range only). */
  readonly predicated: boolean;
  /** Executions of the store: the product of the loop extents (reduce loops left out for an init). */
  readonly execCount: number;
  /** The store's write first, then every load of its value. */
  readonly accesses: readonly Access[];
  readonly kernel: KernelInfo | undefined;
  readonly unrollMaxStep: number;
  readonly unrollExplicit: boolean;
  readonly pipelines: readonly PipelinePosition[];
}

/** storage_align requests (`buffer_dim_align`) by the buffer they pad. */
export interface DimAlign {
  readonly axis: number;
  readonly factor: number;
  readonly offset: number;
}

export interface ProgramSites {
  readonly sites: StoreSite[];
  readonly kernels: KernelInfo[];
  readonly dimAligns: Map<Buffer, DimAlign[]>;
}

interface WalkState {
  readonly loops: LoopInfo[];
  readonly bindings: Map<Var, PrimExpr>;
  kernel: KernelInfo | undefined;
  unrollMaxStep: number;
  unrollExplicit: boolean;
  readonly pipelines: PipelinePosition[];
}

function intList(v: AttrValue | undefined): number[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: number[] = [];
  for (const x of v as readonly AttrValue[]) {
    const n = annotationInt(x);
    if (n === undefined) return undefined;
    out.push(n);
  }
  return out;
}

/** `buffer_dim_align`'s `[buffer_index, axis, factor, offset]` tuples (malformed ones skipped). */
function dimAlignTuples(v: AttrValue | undefined): [number, number, number, number][] {
  if (!Array.isArray(v)) return [];
  const out: [number, number, number, number][] = [];
  for (const t of v as readonly AttrValue[]) {
    const xs = intList(t);
    if (xs !== undefined && xs.length === 4) out.push([xs[0]!, xs[1]!, xs[2]!, xs[3]!]);
  }
  return out;
}

export function collectStoreSites(func: PrimFunc): ProgramSites {
  const unrolled = unrolledLoops(func.body);
  const sites: StoreSite[] = [];
  const kernels: KernelInfo[] = [];
  const dimAligns = new Map<Buffer, DimAlign[]>();
  const state: WalkState = { loops: [], bindings: new Map(), kernel: undefined, unrollMaxStep: 0, unrollExplicit: false, pipelines: [] };

  const applyAnnotations = (annotations: Readonly<Record<string, AttrValue>>): void => {
    const budget = annotations["pragma_auto_unroll_max_step"];
    if (budget !== undefined) state.unrollMaxStep = annotationInt(budget) ?? state.unrollMaxStep;
    const explicit = annotations["pragma_unroll_explicit"];
    if (explicit !== undefined) state.unrollExplicit = annotationFlag(explicit) ?? state.unrollExplicit;
    const bounds = annotations["launch_bounds_min_blocks_per_sm"];
    if (bounds !== undefined && state.kernel !== undefined) state.kernel.minBlocksPerSM = annotationInt(bounds) ?? 0;
  };

  const addSite = (store: BufferStore, block: Block, roles: LoopRole[], isInit: boolean, predicated: boolean): void => {
    const subst = (e: PrimExpr): PrimExpr => substitute(e, state.bindings);
    const accesses: Access[] = [{ buffer: store.buffer, indices: store.indices.map(subst), isWrite: true }];
    forEachExpr(store.value, (e) => {
      if (e.kind === "BufferLoad") accesses.push({ buffer: e.buffer, indices: e.indices.map(subst), isWrite: false });
    });
    const used = new Set<Var>();
    for (const a of accesses) for (const i of a.indices) forEachExpr(i, (e) => e.kind === "Var" && used.add(e));
    const keep = state.loops.map((l, k) => {
      const tag = l.threadTag;
      if (tag === undefined) return true;
      if (tag.startsWith("vthread")) return used.has(l.var);
      return !state.loops.some((inner, j) => j > k && inner.threadTag === tag);
    });
    const loops = state.loops.filter((_, k) => keep[k]);
    const loopRoles = roles.filter((_, k) => keep[k]);
    let execCount = 1;
    loops.forEach((l, k) => {
      if (!(isInit && loopRoles[k] === "reduce")) execCount *= l.extent;
    });
    const site: StoreSite = {
      store,
      blockName: block.name,
      loops,
      stack: state.loops.map((l) => l.loop),
      roles: loopRoles,
      isInit,
      predicated,
      execCount,
      accesses,
      kernel: state.kernel,
      unrollMaxStep: state.unrollMaxStep,
      unrollExplicit: state.unrollExplicit,
      pipelines: [...state.pipelines],
    };
    sites.push(site);
    state.kernel?.sites.push(site);
  };

  const loopRoles = (block: Block, values: readonly PrimExpr[]): LoopRole[] => {
    const spatial = new Set<Var>();
    const reduce = new Set<Var>();
    block.iterVars.forEach((iv, k) => {
      const target = iv.iterType === "reduce" ? reduce : spatial;
      forEachExpr(values[k]!, (e) => {
        if (e.kind === "Var") target.add(e);
      });
    });
    return state.loops.map((l) => {
      const s = spatial.has(l.var);
      const r = reduce.has(l.var);
      return s && r ? "mixed" : s ? "spatial" : r ? "reduce" : "none";
    });
  };

  const visitStores = (s: Stmt, block: Block, roles: LoopRole[], isInit: boolean, predicated: boolean): void => {
    if (s.kind === "BufferStore") addSite(s, block, roles, isInit, predicated);
    else visit(s, block);
  };

  const visit = (s: Stmt, block: Block | undefined): void => {
    switch (s.kind) {
      case "SeqStmt":
        for (const c of s.seq) visit(c, block);
        return;
      case "For": {
        const extent = s.extent.kind === "IntImm" ? s.extent.value : 1;
        const saved = { kernel: state.kernel, unrollMaxStep: state.unrollMaxStep, unrollExplicit: state.unrollExplicit };
        const tag = s.forKind === "thread_binding" ? s.threadTag : undefined;
        if (tag !== undefined) {
          if (state.kernel === undefined && tag.startsWith("blockIdx")) {
            state.kernel = { index: kernels.length, threadExtents: new Map(), minBlocksPerSM: 0, sites: [] };
            kernels.push(state.kernel);
          }
          const k = state.kernel;
          if (k !== undefined) k.threadExtents.set(tag, Math.max(k.threadExtents.get(tag) ?? 1, extent));
        }
        applyAnnotations(s.annotations);
        state.loops.push({ loop: s, var: s.loopVar, extent, kind: s.forKind, threadTag: tag, unrolled: unrolled.has(s) && extent > 1 });
        const stages = intList(s.annotations["software_pipeline_stage"]);
        if (stages === undefined) visit(s.body, block);
        else {
          const order = intList(s.annotations["software_pipeline_order"]) ?? stages.map((_, k) => k);
          const asyncStages = intList(s.annotations["software_pipeline_async_stages"])?.length ?? 0;
          const body = s.body.kind === "SeqStmt" ? s.body.seq : [s.body];
          body.forEach((c, k) => {
            state.pipelines.push({ loop: s, stages, order, asyncStages, statement: s.body.kind === "SeqStmt" ? k : -1 });
            visit(c, block);
            state.pipelines.pop();
          });
        }
        state.loops.pop();
        state.kernel = saved.kernel;
        state.unrollMaxStep = saved.unrollMaxStep;
        state.unrollExplicit = saved.unrollExplicit;
        return;
      }
      case "BlockRealize": {
        const blk = s.block;
        const saved = { unrollMaxStep: state.unrollMaxStep, unrollExplicit: state.unrollExplicit };
        applyAnnotations(blk.annotations);
        for (const [index, axis, factor, offset] of dimAlignTuples(blk.annotations["buffer_dim_align"])) {
          const buffer = blk.writes[index]?.buffer;
          if (buffer === undefined) continue;
          dimAligns.set(buffer, [...(dimAligns.get(buffer) ?? []), { axis, factor, offset }]);
        }
        const values = s.iterValues.map((v) => substitute(v, state.bindings));
        const roles = loopRoles(blk, s.iterValues);
        blk.iterVars.forEach((iv, k) => state.bindings.set(iv.var, values[k]!));
        const predicated = !(s.predicate.kind === "IntImm" && s.predicate.value === 1);
        if (blk.init !== undefined) visitStores(blk.init, blk, roles, true, predicated);
        visitStores(blk.body, blk, roles, false, predicated);
        for (const iv of blk.iterVars) state.bindings.delete(iv.var);
        state.unrollMaxStep = saved.unrollMaxStep;
        state.unrollExplicit = saved.unrollExplicit;
        return;
      }
      case "BufferStore":
        if (block !== undefined) addSite(s, block, loopRoles(block, []), false, false);
        return;
      case "IfThenElse":
        visit(s.thenCase, block);
        if (s.elseCase !== undefined) visit(s.elseCase, block);
        return;
      case "Evaluate":
        return;
      default:
        visit(s.body, block);
    }
  };
  visit(func.body, undefined);
  return { sites, kernels, dimAligns };
}

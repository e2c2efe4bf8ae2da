/**
 * Registers a thread of a kernel needs, estimated on the scheduled TensorIR (before lowering), so
 * that a postprocessor can derive `__launch_bounds__` from them instead of sampling it blindly.
 *
 * A local buffer lives in registers for the duration of the innermost loop around all its accesses
 * (where lowering's buffer compaction allocates it). Its per-thread size is what one thread writes
 * inside that loop: the product of the extents of the loops under it (not bound to block or thread
 * indices) whose variables index the written elements, times the virtual threads whose variables
 * do (each virtual thread has its own copy). The estimate is a base for indices and pointers plus
 * the sum of the local buffers — the same count the analytic latency model uses.
 */
import { type Block, type Buffer, type For, type PrimExpr, type Stmt, forEachBlockRealize, forEachStmt } from "@tessera/ir";
import { varsOf } from "../rules/multi-level-tiling/block-query.js";

/** Registers a thread needs besides its local buffers (indices, pointers, loop counters). */
export const BASE_REGISTERS = 16;
/** 32-bit registers of an SM: 64 Ki on every NVIDIA architecture from sm_50 to sm_90. */
export const REGISTERS_PER_SM = 65536;

interface LocalWrite {
  readonly loops: readonly For[];
  readonly bindings: readonly PrimExpr[];
}

/** Elements of local buffers one thread holds under `root` (a kernel's outermost loop, or a whole body). */
export function localElementsPerThread(root: Stmt): number {
  const accessPaths = new Map<Buffer, (readonly For[])[]>();
  const writes = new Map<Buffer, LocalWrite[]>();
  forEachBlockRealize(root, (realize, loops) => {
    const block: Block = realize.block;
    // Only leaf blocks access buffers element by element; an enclosing block's regions summarise them.
    if (!isLeaf(block)) return;
    for (const region of [...block.reads, ...block.writes]) {
      if (region.buffer.scope !== "local") continue;
      const paths = accessPaths.get(region.buffer) ?? [];
      paths.push(loops);
      accessPaths.set(region.buffer, paths);
    }
    for (const region of block.writes) {
      if (region.buffer.scope !== "local") continue;
      const spatial = block.iterVars.flatMap((iv, k) => (iv.iterType === "spatial" ? [realize.iterValues[k]!] : []));
      const list = writes.get(region.buffer) ?? [];
      list.push({ loops, bindings: spatial });
      writes.set(region.buffer, list);
    }
  });
  let total = 0;
  for (const [buffer, list] of writes) {
    const scope = commonPrefixLength(accessPaths.get(buffer) ?? []);
    total += Math.max(...list.map((w) => elementsWritten(w, scope)));
  }
  return total;
}

/** Registers per thread: the base plus the local elements. */
export function registersPerThread(root: Stmt): number {
  return BASE_REGISTERS + localElementsPerThread(root);
}

/**
 * The largest number of blocks of `threads` threads that fit an SM's `registersPerSM` at the
 * estimated registers (at most 255, allocated in units of 8 per thread), within `maxThreadsPerSM`
 * when known; at least 1.
 */
export function blocksPerSMForRegisters(registers: number, threads: number, registersPerSM: number, maxThreadsPerSM: number | undefined): number {
  const allocated = Math.ceil(Math.min(255, registers) / 8) * 8;
  const byRegisters = Math.floor(registersPerSM / (allocated * threads));
  const byThreads = maxThreadsPerSM === undefined ? Infinity : Math.floor(maxThreadsPerSM / threads);
  return Math.max(1, Math.min(byRegisters, byThreads));
}

function elementsWritten(write: LocalWrite, scope: number): number {
  const used = new Set(write.bindings.flatMap((b) => [...varsOf(b)]));
  let elements = 1;
  write.loops.forEach((loop, depth) => {
    if (!used.has(loop.loopVar) || loop.extent.kind !== "IntImm") return;
    const tag = loop.threadTag ?? "";
    const replicated = loop.forKind === "thread_binding" && tag.startsWith("vthread");
    const iterated = depth >= scope && loop.forKind !== "thread_binding";
    if (replicated || iterated) elements *= loop.extent.value;
  });
  return elements;
}

function isLeaf(block: Block): boolean {
  let leaf = true;
  const visit = (s: Stmt) =>
    forEachStmt(s, (n) => {
      if (n.kind === "BlockRealize") leaf = false;
      return leaf;
    });
  visit(block.body);
  if (block.init !== undefined) visit(block.init);
  return leaf;
}

/** How many loops, outermost first, every path shares. */
function commonPrefixLength(paths: readonly (readonly For[])[]): number {
  if (paths.length === 0) return 0;
  let n = Math.min(...paths.map((p) => p.length));
  for (const p of paths) {
    let k = 0;
    while (k < n && p[k] === paths[0]![k]) k++;
    n = k;
  }
  return n;
}

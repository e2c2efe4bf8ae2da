/**
 * A read-only view of a scheduled function for structural checks: every block with its realize
 * (bindings) and the loops around it, outermost first. Built from the IR alone, so it grades the
 * trusted replay of a trace, never anything the student's process produced.
 */
import { type Block, type BlockRealize, type Buffer, type For, type PrimFunc, forEachBlockRealize, paramBuffers, usesVar } from "@tessera/ir";

export interface BlockSite {
  readonly block: Block;
  readonly realize: BlockRealize;
  /** Loops around the block, outermost first. */
  readonly loops: readonly For[];
}

export interface ProgramView {
  readonly func: PrimFunc;
  /** Sites by block name (a name may occur more than once). */
  readonly blocks: ReadonlyMap<string, readonly BlockSite[]>;
  readonly params: readonly Buffer[];
}

export function programView(func: PrimFunc): ProgramView {
  const blocks = new Map<string, BlockSite[]>();
  forEachBlockRealize(func.body, (realize, loops) => {
    const name = realize.block.name;
    if (name !== "root") blocks.set(name, [...(blocks.get(name) ?? []), { block: realize.block, realize, loops }]);
  });
  return { func, blocks, params: paramBuffers(func) };
}

/** The single site of a block, or undefined when it does not exist (or is ambiguous). */
export function site(view: ProgramView, name: string): BlockSite | undefined {
  const sites = view.blocks.get(name);
  return sites?.length === 1 ? sites[0] : undefined;
}

/** Loops around `s` whose variable feeds the block iterator at `axisIndex`. */
export function loopsFeeding(s: BlockSite, axisIndex: number): For[] {
  const binding = s.realize.iterValues[axisIndex];
  if (binding === undefined) return [];
  return s.loops.filter((l) => usesVar(binding, (v) => v === l.loopVar));
}

export function constExtent(loop: For): number | undefined {
  return loop.extent.kind === "IntImm" ? loop.extent.value : undefined;
}

/** Human-readable loop: `i_0 (extent 32, bound to blockIdx.x)`. */
export function describeLoop(loop: For): string {
  return `${loop.loopVar.name} (${loopFacts(loop).join(", ")})`;
}

/** A loop named by its role: `the k-chunk loop (k_0, extent 32)`. */
export function describeRoleLoop(role: string, loop: For): string {
  return `${role} (${[loop.loopVar.name, ...loopFacts(loop)].join(", ")})`;
}

function loopFacts(loop: For): string[] {
  const extent = constExtent(loop);
  const bits = [extent === undefined ? "symbolic extent" : `extent ${extent}`];
  if (loop.threadTag !== undefined) bits.push(`bound to ${loop.threadTag}`);
  return bits;
}

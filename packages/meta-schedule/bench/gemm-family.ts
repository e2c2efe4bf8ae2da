/**
 * A gemm's tile family in the default CUDA space, read from a trace's tile decisions: its four
 * SamplePerfectTile steps are i_0 [blocks, virtual threads], i_1 [threads, threads], then j_0 and
 * j_1 alike, so the blocks per axis give the block tile and the threads' products the thread
 * layout (docs/benchmarks/tuning-2026-11-30-s19 and -s20: the families the prior cannot rank apart).
 */
import type { Trace } from "@tessera/schedule";

/** "blocks i×j, threads i×j" of a gemm trace of the default CUDA space, or undefined for another kind of trace. */
export function gemmTileFamilyOf(candidate: { readonly trace: Trace }): string | undefined {
  const trace = candidate.trace;
  const tiles = trace.instructions.filter((inst) => inst.kind.name === "SamplePerfectTile").map((inst) => trace.getDecision(inst));
  if (tiles.length !== 4 || !tiles.every((t): t is readonly number[] => Array.isArray(t) && t.length === 2)) return undefined;
  const [i0, i1, j0, j1] = tiles as [readonly number[], readonly number[], readonly number[], readonly number[]];
  return `blocks ${i0[0]}×${j0[0]}, threads ${i1[0]! * i1[1]!}×${j1[0]! * j1[1]!}`;
}

/**
 * Is the annotated schedule of the statements legal? Pipelining runs instance `k` of a statement
 * of stage `s` in pipelined iteration `k + s`, in `software_pipeline_order` within an iteration.
 * Every pair of accesses to one buffer (at least one a write, regions overlapping) must keep its
 * original order. With `V` versions, instances `k` and `k + d` share storage only when
 * `d ≡ 0 (mod V)`, so the closest pair that could be reordered is in the same iteration (when the
 * first statement precedes the second in the body) or `V` iterations apart (when it does not);
 * farther pairs are only farther apart in the new order.
 *
 * This covers TVM's check (a consumer in the same iteration must not be in an earlier stage than
 * its producer, nor before it in the order within one stage) and the loop-carried hazards TVM
 * leaves to the user: a buffer with too few versions, or allocated outside the loop (one version).
 */
import type { For, Var } from "@tessera/ir";
import { type AccessBox, boxesOf, boxesOverlap } from "./accesses.js";
import { pipelineError } from "./annotations.js";
import { type PipelineStmt, describeStmt } from "./model.js";

export interface DependenceContext {
  readonly loop: For;
  /** The loop's trip count when constant. */
  readonly tripCount: number | undefined;
  readonly versionsOf: (data: Var) => number;
  /** Storage allocated for the loop body (versionable). */
  readonly pipelineAllocated: ReadonlySet<Var>;
}

type Hazard = { readonly first: "read" | "write"; readonly second: "read" | "write" };

export function checkDependences(stmts: readonly PipelineStmt[], ctx: DependenceContext): void {
  for (const first of stmts) {
    for (const second of stmts) {
      if (first === second) continue;
      for (const { data, name, hazard } of sharedHazards(first, second)) {
        const versions = ctx.versionsOf(data);
        const distance = first.position < second.position ? 0 : versions;
        if (ctx.tripCount !== undefined && distance >= ctx.tripCount) continue;
        const gap = distance + second.stage - first.stage;
        if (gap > 0 || (gap === 0 && first.order < second.order)) continue;
        throw pipelineError(ctx.loop, reorderMessage(first, second, name, hazard, distance, versions, ctx.pipelineAllocated.has(data)));
      }
    }
  }
}

/** Buffers both statements access, at least one writing, with overlapping regions. */
function sharedHazards(first: PipelineStmt, second: PipelineStmt): { data: Var; name: string; hazard: Hazard }[] {
  const out: { data: Var; name: string; hazard: Hazard }[] = [];
  const seen = new Set<Var>();
  const kinds = (st: PipelineStmt): ["read" | "write", readonly AccessBox[]][] => [
    ["write", st.accesses.writes],
    ["read", st.accesses.reads],
  ];
  for (const [firstKind, firstRegions] of kinds(first)) {
    for (const region of firstRegions) {
      const data = region.buffer.data;
      if (seen.has(data)) continue;
      for (const [secondKind, secondRegions] of kinds(second)) {
        if (firstKind === "read" && secondKind === "read") continue;
        if (!boxesOverlap(boxesOf(firstRegions, data), boxesOf(secondRegions, data))) continue;
        out.push({ data, name: region.buffer.name, hazard: { first: firstKind, second: secondKind } });
        seen.add(data);
        break;
      }
    }
  }
  return out;
}

function reorderMessage(
  first: PipelineStmt,
  second: PipelineStmt,
  buffer: string,
  hazard: Hazard,
  distance: number,
  versions: number,
  pipelineAllocated: boolean,
): string {
  const verb = (k: "read" | "write"): string => (k === "read" ? "reads" : "writes");
  const when = distance === 0 ? "in the same iteration" : `${distance} iteration${distance === 1 ? "" : "s"} earlier`;
  const head =
    `cannot be pipelined as annotated: ${describeStmt(second)} ${verb(hazard.second)} ${buffer}, which ` +
    `${describeStmt(first)} ${verb(hazard.first)} ${when}, but the pipeline would run it first`;
  if (distance === 0) {
    return `${head} (a statement that depends on another cannot be in an earlier stage, nor before it in ` + `software_pipeline_order within one stage)`;
  }
  const why = pipelineAllocated
    ? `${buffer} gets ${versions} version${versions === 1 ? "" : "s"} from the stages and order given`
    : `${buffer} is allocated outside the loop, so it cannot get one version per iteration in flight`;
  return `${head} (${why}; put ${describeStmt(second).replace(/ \(.*$/, "")} in a later stage or after the other statement in the order)`;
}

/** Launch dimensions of one kernel, read from its `thread_extent` attributes. */
import { type Stmt, printExpr } from "@tessera/ir";
import type { Dim3 } from "../../launch-metadata.js";
import { LoweringError } from "../errors.js";
import { parseLaunchTag, threadExtentAttrs } from "./thread-env.js";

export interface LaunchDims {
  readonly grid: Dim3;
  readonly block: Dim3;
}

/**
 * Grid from the `blockIdx.*` extents, block from the `threadIdx.*` extents (1 where a tag is
 * absent). Every extent must be a constant, and a tag met at several places must have one extent.
 */
export function launchDims(kernel: string, body: Stmt, pass: string): LaunchDims {
  const grid: [number, number, number] = [1, 1, 1];
  const block: [number, number, number] = [1, 1, 1];
  const seen = new Map<string, number>();
  for (const attr of threadExtentAttrs(body)) {
    const tag = attr.node.name;
    const parsed = parseLaunchTag(tag);
    if (parsed === undefined) {
      throw new LoweringError(pass, `kernel ${kernel}: unknown launch tag "${tag}" (expected blockIdx.x/y/z or threadIdx.x/y/z)`);
    }
    if (attr.value.kind !== "IntImm") {
      throw new LoweringError(
        pass,
        `kernel ${kernel}: the extent of ${tag} is ${printExpr(attr.value)}, not a constant; launch dimensions must be known at compile time`,
      );
    }
    const extent = attr.value.value;
    const previous = seen.get(tag);
    if (previous !== undefined && previous !== extent) {
      throw new LoweringError(pass, `kernel ${kernel}: ${tag} is bound with extent ${previous} in one place and ${extent} in another`);
    }
    if (extent < 1) throw new LoweringError(pass, `kernel ${kernel}: ${tag} has extent ${extent}; it must be at least 1`);
    seen.set(tag, extent);
    (parsed.axis === "blockIdx" ? grid : block)[parsed.dim] = extent;
  }
  return { grid, block };
}

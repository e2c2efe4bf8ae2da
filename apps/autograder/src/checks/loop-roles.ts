/**
 * Loops selected by role (axis and level) instead of by extent, so that a check still finds "the
 * k-chunk loop" when an earlier mistake gave it another extent.
 */
import type { For } from "@tessera/ir";
import type { Axis, LoopRole } from "../manifest/index.js";
import { type BlockSite, describeLoop, loopsFeeding } from "./program-view.js";

const AXES: readonly Axis[] = ["i", "j", "k"];

/** The loops over `axis` around the block, outermost first. */
export function axisLoops(s: BlockSite, axis: Axis): For[] {
  return loopsFeeding(s, AXES.indexOf(axis));
}

/** The loops a role stands for (none when the axis was not split that far). */
export function roleLoops(s: BlockSite, role: LoopRole): For[] {
  const loops = axisLoops(s, role.axis);
  return role.andInner === true ? loops.slice(role.level) : loops.slice(role.level, role.level + 1);
}

export function isThreadIdx(loop: For): boolean {
  return loop.threadTag?.startsWith("threadIdx") === true;
}

/** "i_0 (extent 32), j_0 (extent 32)", or "none". */
export function listLoops(loops: readonly For[]): string {
  return loops.length === 0 ? "none" : loops.map(describeLoop).join(", ");
}

export function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}

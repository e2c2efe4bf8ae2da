/**
 * Launch dimensions of lowered code: `AttrStmt("thread_extent", v, n)` where `v` is named by its
 * tag (`blockIdx.x`, `threadIdx.y`, …), and `AttrStmt("virtual_thread", v, n)` for vthreads.
 */
import { type AttrStmt, type Stmt, type Var, forEachStmt } from "@tessera/ir";

export const THREAD_EXTENT = "thread_extent";
export const VIRTUAL_THREAD = "virtual_thread";

export type LaunchAxis = "blockIdx" | "threadIdx";

export interface ParsedTag {
  readonly axis: LaunchAxis;
  /** 0 for x, 1 for y, 2 for z. */
  readonly dim: 0 | 1 | 2;
}

const TAG = /^(blockIdx|threadIdx)\.([xyz])$/;

/** `threadIdx.y` → { axis: "threadIdx", dim: 1 }; undefined for anything else. */
export function parseLaunchTag(tag: string): ParsedTag | undefined {
  const m = TAG.exec(tag);
  if (m === null) return undefined;
  return { axis: m[1] as LaunchAxis, dim: "xyz".indexOf(m[2]!) as 0 | 1 | 2 };
}

export function isThreadExtent(s: Stmt): s is AttrStmt & { node: Var } {
  return s.kind === "AttrStmt" && s.key === THREAD_EXTENT && s.node !== undefined;
}

export function isThreadIndexVar(v: Var): boolean {
  return parseLaunchTag(v.name)?.axis === "threadIdx";
}

/** Every `thread_extent` attribute below `root` (pre-order). */
export function threadExtentAttrs(root: Stmt): (AttrStmt & { node: Var })[] {
  const out: (AttrStmt & { node: Var })[] = [];
  forEachStmt(root, (s) => {
    if (isThreadExtent(s)) out.push(s);
  });
  return out;
}

export function containsThreadExtent(root: Stmt): boolean {
  return threadExtentAttrs(root).length > 0;
}

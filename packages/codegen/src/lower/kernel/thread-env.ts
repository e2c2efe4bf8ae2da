/**
 * Launch dimensions of lowered code: `AttrStmt("thread_extent", v, n)` where `v` is named by its
 * tag (`blockIdx.x`, `threadIdx.y`, …), and `AttrStmt("virtual_thread", v, n)` for vthreads.
 */
import { type AttrStmt, type Stmt, type Var, forEachStmt, printExpr } from "@tessera/ir";

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
  let found = false;
  forEachStmt(root, (s) => {
    if (found || isThreadExtent(s)) found = true;
    return !found;
  });
  return found;
}

/** A launch tag's variable and extent, as the kernel body binds it. */
export interface ThreadBinding {
  readonly tag: string;
  readonly variable: Var;
  readonly extent: number;
}

export interface LaunchShape {
  /** One entry per distinct (tag, variable) pair, in the order first met. */
  readonly bindings: readonly ThreadBinding[];
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
}

/**
 * The launch shape a kernel body binds: grid from the `blockIdx.*` extents, block from the
 * `threadIdx.*` extents (1 where a tag is absent). Every extent must be a positive constant and a
 * tag met at several places must have one extent. `fail` raises the caller's error (lowering,
 * code generation and the simulator each report in their own terms).
 */
export function readLaunchShape(body: Stmt, fail: (detail: string) => never): LaunchShape {
  const grid: [number, number, number] = [1, 1, 1];
  const block: [number, number, number] = [1, 1, 1];
  const bindings: ThreadBinding[] = [];
  forEachStmt(body, (s) => {
    if (s.kind !== "AttrStmt" || s.key !== THREAD_EXTENT) return;
    const v = s.node;
    if (v === undefined) return fail("a thread_extent attribute has no thread variable");
    const tag = v.name;
    const parsed = parseLaunchTag(tag);
    if (parsed === undefined) return fail(`unknown launch tag "${tag}" (expected blockIdx.x/y/z or threadIdx.x/y/z)`);
    if (s.value.kind !== "IntImm") {
      return fail(`the extent of ${tag} is ${printExpr(s.value)}, not a constant; launch dimensions must be known at compile time`);
    }
    const extent = s.value.value;
    if (extent < 1) return fail(`${tag} has extent ${extent}; it must be at least 1`);
    const previous = bindings.find((b) => b.tag === tag);
    if (previous !== undefined && previous.extent !== extent) {
      return fail(`${tag} is bound with extent ${previous.extent} in one place and ${extent} in another`);
    }
    if (!bindings.some((b) => b.variable === v)) bindings.push({ tag, variable: v, extent });
    (parsed.axis === "blockIdx" ? grid : block)[parsed.dim] = extent;
  });
  return { bindings, grid, block };
}

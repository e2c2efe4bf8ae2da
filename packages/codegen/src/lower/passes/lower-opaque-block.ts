/**
 * Pass 6, `lowerOpaqueBlock` (TVM LowerOpaqueBlock, with UnifyThreadBinding folded in): blocks
 * disappear. A block's predicate becomes an `if`, its allocations `Allocate` + `DeclBuffer`
 * statements with TVM's allocation annotations around its body (util/flat-allocation). A loop bound to a thread becomes `AttrStmt("thread_extent", v, extent)` (`virtual_thread`
 * for `vthread.*`), where `v` is one variable per tag, named by the tag, shared by every loop bound
 * to it; launch tags need one constant extent in each kernel (each launch nest). Serial loops of
 * extent 1 without annotations are removed. `pragma_*` and `launch_bounds_min_blocks_per_sm`
 * annotations of loops and blocks become attribute statements around them (util/annotation-attrs).
 * Requires convertBlocksToOpaque.
 */
import {
  type BlockRealize,
  type For,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  attrStmt,
  cast,
  ifThenElseStmt,
  isConstInt,
  variable,
  withBody,
  isLaunchTag,
  isVirtualThreadTag,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";
import { requireOpaqueBlocks } from "../util/block-checks.js";
import { splitAnnotations, wrapInAttrs } from "../util/annotation-attrs.js";
import { isConstTrue } from "../util/conditions.js";
import { flatAllocation } from "../util/flat-allocation.js";

const PASS = "lowerOpaqueBlock";

interface ThreadAxis {
  readonly v: Var;
  /** The loops bound to the tag and their extents, for the error message. */
  readonly loops: { readonly name: string; readonly extent: PrimExpr }[];
}

class BlockLowerer extends IRMutator {
  private readonly axes = new Map<string, ThreadAxis>();
  /** Loop variable → its replacement (the tag's variable, or the min of a removed loop). */
  private readonly replacements = new Map<Var, PrimExpr>();
  /** Tags whose attribute encloses the statement being visited. */
  private readonly openTags = new Set<string>();

  override visitVar(v: Var): PrimExpr {
    return this.replacements.get(v) ?? v;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const blk = s.block;
    if (blk.matchBuffers.length > 0) {
      throw new LoweringError(
        PASS,
        `block ${blk.name} has match_buffer views (${blk.matchBuffers.map((m) => m.buffer.name).join(", ")}), which are not supported`,
      );
    }
    const predicate = this.visitExpr(s.predicate);
    let body = this.visitStmt(blk.body);
    for (const buffer of [...blk.allocBuffers].reverse()) body = flatAllocation(this.mapBuffer(buffer), body);
    const { attrs } = splitAnnotations(PASS, `block ${blk.name}`, blk.annotations);
    return wrapInAttrs(attrs, isConstTrue(predicate) ? body : ifThenElseStmt(predicate, body));
  }

  override visitFor(s: For): Stmt {
    if (s.forKind === "serial" && isConstInt(s.extent, 1) && Object.keys(s.annotations).length === 0) {
      this.replacements.set(s.loopVar, this.visitExpr(s.min));
      return this.visitStmt(s.body);
    }
    const { attrs, kept } = splitAnnotations(PASS, `loop ${s.loopVar.name}`, s.annotations);
    if (s.forKind === "thread_binding") return wrapInAttrs(attrs, this.lowerThreadLoop(s));
    const loop = super.visitFor(s);
    return wrapInAttrs(attrs, attrs.length === 0 ? loop : { ...(loop as For), annotations: kept });
  }

  private lowerThreadLoop(s: For): Stmt {
    const tag = s.threadTag ?? "";
    const extent = this.visitExpr(s.extent);
    // A launch loop outside every other launch loop starts a new kernel (splitHostDevice cuts
    // there): extents must agree within a kernel only, as in TVM's UnifyThreadBinding.
    if (isLaunchTag(tag) && ![...this.openTags].some(isLaunchTag)) for (const axis of this.axes.values()) axis.loops.length = 0;
    // A loop nested in another loop of its tag (MetaSchedule's cooperative fetch inside the
    // compute's thread loops) shares the tag's variable: every thread runs it once for its index.
    const axis = this.axisOf(tag, s, extent);
    const nested = this.openTags.has(tag);
    const min = this.visitExpr(s.min);
    const threadIndex = cast(s.loopVar.dtype, axis.v);
    this.replacements.set(s.loopVar, isConstInt(min, 0) ? threadIndex : add(threadIndex, min));
    this.openTags.add(tag);
    const body = this.visitStmt(s.body);
    if (!nested) this.openTags.delete(tag);
    return attrStmt(isVirtualThreadTag(tag) ? "virtual_thread" : "thread_extent", axis.v, extent, body);
  }

  private axisOf(tag: string, s: For, extent: PrimExpr): ThreadAxis {
    if (isLaunchTag(tag) && extent.kind !== "IntImm") {
      throw new LoweringError(PASS, `loop ${s.loopVar.name} is bound to ${tag} with a non-constant extent`);
    }
    let axis = this.axes.get(tag);
    if (axis === undefined) {
      axis = { v: variable(tag, "int32"), loops: [] };
      this.axes.set(tag, axis);
    }
    axis.loops.push({ name: s.loopVar.name, extent });
    const first = axis.loops[0]!.extent;
    if (isLaunchTag(tag) && !(extent.kind === "IntImm" && first.kind === "IntImm" && extent.value === first.value)) {
      const listed = axis.loops.map((l) => `${l.name} (${l.extent.kind === "IntImm" ? l.extent.value : "?"})`).join(", ");
      throw new LoweringError(PASS, `all loops bound to ${tag} must have the same extent: ${listed}`);
    }
    return axis;
  }
}

export function lowerOpaqueBlock(func: PrimFunc): PrimFunc {
  requireOpaqueBlocks(PASS, func.body);
  const body = new BlockLowerer().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const lowerOpaqueBlockPass: Pass = { name: PASS, run: (func) => lowerOpaqueBlock(func) };

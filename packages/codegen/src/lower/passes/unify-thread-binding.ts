/**
 * `unifyThreadBinding` (TVM UnifyThreadBinding): within a kernel, all loops (and `thread_extent` /
 * `virtual_thread` attributes) bound to one thread tag become one loop variable. The kernel starts
 * at its outermost thread binding; there, one `thread_binding` loop per tag is emitted, in the
 * order the tags first occur, around the kernel's body with every other binding removed (each
 * thread runs the whole body). Loops of one tag in a kernel need the same range (a LoweringError
 * otherwise, where TVM raises ValueError). A bound loop's annotations go to a serial unit loop in
 * its place. A new kernel (a later outermost binding) starts afresh, so kernels may differ.
 * lowerOpaqueBlock does the same unification while it lowers; this pass runs on its own.
 */
import {
  Analyzer,
  type Annotations,
  type AttrStmt,
  type For,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Range,
  type Stmt,
  type Var,
  cast,
  forLoop,
  intImm,
  printExpr,
  variable,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";

const PASS = "unifyThreadBinding";

interface Launch {
  readonly tag: string;
  readonly v: Var;
  readonly dom: Range;
}

const startsKernelLevel = (tag: string): boolean => /^(blockIdx|clusterIdx|clusterCtaIdx)/.test(tag);

class ThreadBindingUnifier extends IRMutator {
  private readonly analyzer = new Analyzer();
  private readonly substitution = new Map<Var, PrimExpr>();
  private byTag = new Map<string, Launch>();
  private launches: Launch[] = [];
  private depth = 0;

  override visitVar(v: Var): PrimExpr {
    return this.substitution.get(v) ?? v;
  }

  override visitFor(s: For): Stmt {
    if (s.forKind !== "thread_binding" || s.threadTag === undefined) return super.visitFor(s);
    const out = this.unify(s.loopVar, s.threadTag, { min: s.min, extent: s.extent }, () => this.visitStmt(s.body));
    return Object.keys(s.annotations).length === 0 ? out : this.annotated(out, s.annotations, s.loopVar);
  }

  override visitStmt(s: Stmt): Stmt {
    if (s.kind !== "AttrStmt" || s.node === undefined || (s.key !== "thread_extent" && s.key !== "virtual_thread")) return super.visitStmt(s);
    const a: AttrStmt = s;
    return this.unify(a.node!, a.node!.name, { min: intImm(0, a.value.dtype), extent: a.value }, () => this.visitStmt(a.body));
  }

  /** A bound loop's annotations stay on the emitted loop, or on a serial unit loop in its place. */
  private annotated(out: Stmt, annotations: Annotations, old: Var): Stmt {
    if (out.kind === "For") return { ...out, annotations };
    return forLoop(variable("var", old.dtype), 1, out, { annotations });
  }

  private unify(old: Var, tag: string, dom: Range, visitBody: () => Stmt): Stmt {
    const outerDepth = this.depth;
    const startsKernel = this.depth === 0;
    const saved = { byTag: this.byTag, launches: this.launches };
    if (startsKernel) {
      this.byTag = new Map();
      this.launches = [];
    }
    if (startsKernel || startsKernelLevel(tag)) this.depth++;
    let launch = this.byTag.get(tag);
    if (launch === undefined) {
      launch = { tag, v: variable(tag.replace(/\./g, "_"), dom.extent.dtype), dom };
      this.byTag.set(tag, launch);
      this.launches.push(launch);
    } else if (!this.analyzer.canProveEqual(launch.dom.min, dom.min) || !this.analyzer.canProveEqual(launch.dom.extent, dom.extent)) {
      throw new LoweringError(
        PASS,
        `all loops bound to ${tag} in a kernel need the same extent; ${old.name} has ${printExpr(dom.extent)}, an earlier one ${printExpr(launch.dom.extent)}`,
      );
    }
    this.substitution.set(old, launch.v.dtype === old.dtype ? launch.v : cast(old.dtype, launch.v));
    const body = visitBody();
    this.depth = outerDepth;
    if (!startsKernel) return body;
    const nest = this.launches.reduceRight<Stmt>(
      (inner, l) => forLoop(l.v, l.dom.extent, inner, { min: l.dom.min, kind: "thread_binding", threadTag: l.tag }),
      body,
    );
    this.byTag = saved.byTag;
    this.launches = saved.launches;
    return nest;
  }
}

export function unifyThreadBinding(func: PrimFunc): PrimFunc {
  const body = new ThreadBindingUnifier().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const unifyThreadBindingPass: Pass = { name: PASS, run: (func) => unifyThreadBinding(func) };

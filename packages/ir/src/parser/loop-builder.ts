/**
 * `for` loops: `range`, `T.serial`, `T.parallel`, `T.vectorized`, `T.unroll`,
 * `T.thread_binding` and `T.grid` (a nest of serial loops).
 */
import { isIntegral } from "../dtype.js";
import { type PrimExpr, type Var, variable } from "../expr.js";
import { type Annotations, type ForKind, type Range, type Stmt, forLoop } from "../stmt.js";
import { type PyExpr, type PyStmt, dottedName } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { evalAttrDict } from "./attr-values.js";
import type { BodyBuilder } from "./body-builder.js";
import { fail } from "./errors.js";
import { type GridTarget, defineGroups, gridTargets, memberKey } from "./grid-targets.js";
import { rangeFromBounds } from "./extent.js";
import { valuesToExprs } from "./literal.js";

type ForStmt = Extract<PyStmt, { kind: "For" }>;
type CallNode = Extract<PyExpr, { kind: "Call" }>;

const LOOP_KINDS: Record<string, ForKind> = {
  range: "serial",
  "T.serial": "serial",
  "T.parallel": "parallel",
  "T.vectorized": "vectorized",
  "T.unroll": "unrolled",
  "T.thread_binding": "thread_binding",
};

interface LoopSpec {
  readonly name: string;
  readonly range: Range;
  readonly kind: ForKind;
  readonly threadTag?: string | undefined;
  readonly annotations: Annotations;
  readonly step?: PrimExpr | undefined;
}

export function buildFor(b: BodyBuilder, s: ForStmt): Stmt {
  const iter = s.iter;
  if (iter.kind !== "Call") fail("a TVMScript loop must iterate over range(...), T.grid(...) or a T.* loop kind", iter.pos);
  const callee = dottedName(iter.func) ?? "";
  let specs: LoopSpec[];
  let targets: GridTarget[];
  if (callee === "T.grid") {
    if (iter.keywords.length > 0) fail("T.grid takes no keyword arguments", iter.keywords[0]!.pos);
    const extents = b.ev.spliced(iter.args);
    targets = gridTargets(s.target, extents.length);
    specs = extents.map((a, i) => {
      const extent = b.ev.index(a, "a loop extent");
      return { name: targets[i]!.name, range: { min: zeroLike(extent), extent }, kind: "serial", annotations: {} };
    });
  } else {
    const names = targetNames(s.target);
    const kind = LOOP_KINDS[callee];
    if (kind === undefined) {
      fail(
        `unsupported loop "${callee || "<expression>"}": expected range, T.serial, T.parallel, T.vectorized, T.unroll, T.thread_binding or T.grid`,
        iter.pos,
      );
    }
    if (names.length !== 1) fail(`${callee} defines one loop variable, but ${names.length} are given`, s.target.pos);
    specs = [loopSpec(b, callee, kind, iter, names[0]!)];
    targets = [{ name: names[0]! }];
  }
  return b.deeper(specs.length, s.pos, () =>
    b.scopes.within(() => {
      const vars: Var[] = specs.map((spec, i) => {
        const v = variable(spec.name, spec.range.extent.dtype);
        const target = targets[i]!;
        b.scopes.define(target.group === undefined ? spec.name : memberKey(target), { kind: "var", var: v, loopRange: spec.range });
        return v;
      });
      defineGroups(b.scopes, targets, s.target.pos);
      b.loopDepth++;
      let body: Stmt;
      try {
        body = b.nested(s.body);
      } finally {
        b.loopDepth--;
      }
      for (let i = specs.length - 1; i >= 0; i--) {
        const spec = specs[i]!;
        body = forLoop(vars[i]!, spec.range.extent, body, {
          min: spec.range.min,
          kind: spec.kind,
          ...(spec.threadTag !== undefined ? { threadTag: spec.threadTag } : {}),
          annotations: spec.annotations,
          ...(spec.step !== undefined ? { step: spec.step } : {}),
        });
      }
      return body;
    }),
  );
}

function targetNames(target: PyExpr): string[] {
  const elts = target.kind === "Tuple" ? target.elts : [target];
  return elts.map((e) => {
    if (e.kind !== "Name") fail("a loop variable must be a plain name", e.pos);
    return e.id;
  });
}

function loopSpec(b: BodyBuilder, callee: string, kind: ForKind, call: CallNode, name: string): LoopSpec {
  if (callee === "range") {
    // TVMScript's range also takes annotations=, as T.serial does.
    const other = call.keywords.find((k) => k.name !== "annotations");
    if (other !== undefined) fail(`range got an unexpected keyword argument "${other.name}"`, other.pos);
  }
  // T.thread_binding(n, "threadIdx.x") passes the tag positionally.
  const positional = call.args.filter((a) => a.kind !== "String");
  const tagArg = call.args.find((a) => a.kind === "String");
  const extra = new Set(kind === "thread_binding" ? ["annotations", "thread"] : ["annotations"]);
  const boundsCall = { ...call, args: positional, keywords: call.keywords.filter((k) => !extra.has(k.name)) };
  const bound = bindArguments(boundsCall, callee, kind === "thread_binding" ? ["start", "stop"] : ["start", "stop", "step"], 1);
  const start = bound.get("start")!;
  const stop = bound.get("stop");
  const stepNode = bound.get("step");
  if (stepNode !== undefined && stop === undefined) fail(`${callee} with a step needs a start and a stop, as in ${callee}(0, n, step=2)`, stepNode.pos);

  let range: Range;
  if (stop === undefined) {
    const extent = b.ev.index(start, "a loop extent");
    range = { min: zeroLike(extent), extent };
  } else {
    const [lo, hi] = valuesToExprs(b.ev.value(start), b.ev.value(stop));
    if (!isIntegral(lo.dtype) || !isIntegral(hi.dtype)) fail("loop bounds must be integers", start.pos);
    range = rangeFromBounds(lo, hi);
  }
  const step = stepNode === undefined ? undefined : b.ev.prim(stepNode, range.extent.dtype);
  if (step !== undefined && step.dtype !== range.extent.dtype)
    fail(`a loop step must be an integer of the loop's dtype ${range.extent.dtype}, got ${step.dtype}`, stepNode!.pos);
  const annNode = call.keywords.find((k) => k.name === "annotations")?.value;
  const annotations = annNode === undefined ? {} : evalAttrDict(b.ev, annNode, "loop annotations");
  let threadTag: string | undefined;
  if (kind === "thread_binding") {
    const tagNode = call.keywords.find((k) => k.name === "thread")?.value ?? tagArg;
    if (tagNode === undefined) fail('T.thread_binding needs a thread tag, as in thread="threadIdx.x"', call.pos);
    threadTag = b.ev.string(tagNode, "a thread tag");
  } else if (tagArg !== undefined) {
    fail(`${callee} does not take a string argument`, tagArg.pos);
  }
  return { name, range, kind, threadTag, annotations, step };
}

function zeroLike(e: PrimExpr): PrimExpr {
  return { kind: "IntImm", dtype: e.dtype, value: 0 };
}

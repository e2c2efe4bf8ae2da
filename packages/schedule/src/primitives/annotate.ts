/**
 * annotate / unannotate: attach a key–value annotation to a block or loop, or remove one. As in
 * TVM, annotating a key that already exists is a silent no-op (the first value wins), and an
 * ExprRV value is stored as the integer it was sampled to. A key the compiler understands
 * (`ANNOTATION_KEYS` in @tessera/ir) must get a value of its type; other keys take any value.
 */
import { type AttrValue, type Block, type For, type Stmt, annotationValueProblem } from "@tessera/ir";
import type { PrimitiveContext } from "../context.js";
import { describe } from "../context.js";
import { ScheduleError, ScheduleUsageError } from "../errors.js";
import { BlockRV, ExprRV } from "../handles.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../instruction.js";
import { replaceStmts } from "../state/replace.js";
import type { BlockEntry, LoopEntry } from "../state/tree-index.js";

/** `unannotate` of a key the block or loop does not have. */
export class AnnotationKeyNotFoundError extends ScheduleError {
  override name = "AnnotationKeyNotFoundError";
}

function target(ctx: PrimitiveContext, rv: unknown, primitive: string): BlockEntry | LoopEntry {
  return rv instanceof BlockRV ? ctx.block(rv, primitive, "block_or_loop") : ctx.loop(rv, primitive, "block_or_loop");
}

/** A known annotation key given a value of the wrong type. */
export class AnnotationValueTypeError extends ScheduleError {
  override name = "AnnotationValueTypeError";
}

function ownerName(entry: BlockEntry | LoopEntry): string {
  return entry.kind === "loop" ? `loop ${entry.node.loopVar.name}` : `block ${entry.node.name}`;
}

function checkValueType(entry: BlockEntry | LoopEntry, key: string, value: AttrValue): void {
  const problem = annotationValueProblem(ownerName(entry), key, value);
  if (problem !== undefined) throw new AnnotationValueTypeError("annotate", `${problem}.`, [entry.node]);
}

/** The stored form of an annotation value. */
function annotationValue(ctx: PrimitiveContext, v: unknown): AttrValue {
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (v instanceof ExprRV) return ctx.value(v, "annotate", "ann_val");
  if (Array.isArray(v)) return v.map((x) => annotationValue(ctx, x));
  throw new ScheduleUsageError("annotate", `an annotation value must be a string, number, boolean, ExprRV or an array of those, got ${describe(v)}`);
}

/** Replaces the annotations of the block or loop of `entry` and commits. */
function setAnnotations(ctx: PrimitiveContext, entry: BlockEntry | LoopEntry, annotations: Record<string, AttrValue>): void {
  if (entry.kind === "loop") {
    const next: For = { ...entry.node, annotations };
    ctx.commit(replaceStmts(ctx.func.body, new Map<Stmt, Stmt>([[entry.node, next]]), undefined, ctx.index));
    return;
  }
  const block: Block = { ...entry.node, annotations };
  ctx.commit(replaceStmts(ctx.func.body, new Map<Stmt, Stmt>([[entry.realize, { ...entry.realize, block }]]), undefined, ctx.index));
}

export const ANNOTATE: InstructionKind = registerInstruction({
  name: "Annotate",
  method: "annotate",
  pure: false,
  singleOutput: false,
  attrNames: ["ann_key"],
  apply(ctx, inputs, attrs) {
    const key = attrs[0];
    if (typeof key !== "string") throw new ScheduleUsageError("annotate", `the annotation key must be a string, got ${String(key)}`);
    const entry = target(ctx, inputs[0], "annotate");
    const value = annotationValue(ctx, inputs[1]);
    checkValueType(entry, key, value);
    if (Object.hasOwn(entry.node.annotations, key)) return { outputs: [] };
    setAnnotations(ctx, entry, { ...entry.node.annotations, [key]: value });
    return { outputs: [] };
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}, ${renderInput(inputs[1]!)}`,
});

export const UNANNOTATE: InstructionKind = registerInstruction({
  name: "Unannotate",
  method: "unannotate",
  pure: false,
  singleOutput: false,
  attrNames: ["ann_key"],
  apply(ctx, inputs, attrs) {
    const key = attrs[0];
    if (typeof key !== "string") throw new ScheduleUsageError("unannotate", `the annotation key must be a string, got ${String(key)}`);
    const entry = target(ctx, inputs[0], "unannotate");
    if (!Object.hasOwn(entry.node.annotations, key)) {
      throw new AnnotationKeyNotFoundError("unannotate", `Cannot find annotation key: ${key}`, [entry.node]);
    }
    const { [key]: _removed, ...rest } = entry.node.annotations;
    setAnnotations(ctx, entry, rest);
    return { outputs: [] };
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}`,
});

/**
 * The loop annotations that request software pipelining (TVM's keys): one stage and one position
 * in the new order per statement of the loop body, and the stages whose statements run
 * asynchronously.
 */
import { type AttrValue, type For, type PrimExpr, printExpr } from "@tessera/ir";
import { LoweringError } from "../errors.js";

export const PIPELINE_STAGE = "software_pipeline_stage";
export const PIPELINE_ORDER = "software_pipeline_order";
export const PIPELINE_ASYNC_STAGES = "software_pipeline_async_stages";

export const PASS = "injectSoftwarePipeline";

export interface PipelineAnnotation {
  readonly stages: readonly number[];
  readonly orders: readonly number[];
  readonly asyncStages: ReadonlySet<number>;
}

export function hasPipelineAnnotation(loop: For): boolean {
  return PIPELINE_STAGE in loop.annotations || PIPELINE_ORDER in loop.annotations;
}

/** The loop's pipeline annotations, checked for shape (not yet against the body). */
export function readPipelineAnnotation(loop: For): PipelineAnnotation {
  const stage = loop.annotations[PIPELINE_STAGE];
  const order = loop.annotations[PIPELINE_ORDER];
  if (stage === undefined) throw pipelineError(loop, `has ${PIPELINE_ORDER} but no ${PIPELINE_STAGE}: the stage of each statement is not defined`);
  if (order === undefined) throw pipelineError(loop, `has ${PIPELINE_STAGE} but no ${PIPELINE_ORDER}: the order of the statements is not defined`);
  const asyncStages = loop.annotations[PIPELINE_ASYNC_STAGES];
  return {
    stages: integerList(loop, PIPELINE_STAGE, stage),
    orders: integerList(loop, PIPELINE_ORDER, order),
    asyncStages: new Set(asyncStages === undefined ? [] : integerList(loop, PIPELINE_ASYNC_STAGES, asyncStages)),
  };
}

/** The annotations a pipelined loop keeps (all but the pipeline's own). */
export function preservedAnnotations(loop: For): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const [key, value] of Object.entries(loop.annotations)) {
    if (key !== PIPELINE_STAGE && key !== PIPELINE_ORDER && key !== PIPELINE_ASYNC_STAGES) out[key] = value;
  }
  return out;
}

export function pipelineError(loop: For, detail: string): LoweringError {
  return new LoweringError(PASS, `loop ${loop.loopVar.name} ${detail}`);
}

function integerList(loop: For, key: string, value: AttrValue): number[] {
  const items = Array.isArray(value) ? (value as readonly AttrValue[]) : undefined;
  const numbers = items?.map(nonNegativeInteger);
  if (numbers === undefined || numbers.some((n) => n === undefined)) {
    throw pipelineError(loop, `has ${key} = ${describe(value)}; it must be a list of non-negative integers`);
  }
  return numbers as number[];
}

function nonNegativeInteger(v: AttrValue): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "object" && !Array.isArray(v) && "kind" in v && v.kind === "IntImm" ? (v.value as number) : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function describe(value: AttrValue): string {
  if (Array.isArray(value)) return `[${(value as readonly AttrValue[]).map(describe).join(", ")}]`;
  if (typeof value === "object" && "dtype" in value) return printExpr(value as PrimExpr);
  return JSON.stringify(value);
}

/** The annotation against a body of `count` statements: one stage and one order each, a permutation. */
export function checkAnnotationFitsBody(loop: For, annotation: PipelineAnnotation, count: number, openedBlocks: number): void {
  const opened =
    openedBlocks === 0
      ? ""
      : `; the statements of ${openedBlocks} nested block${openedBlocks === 1 ? "" : "s"} without predicate count one by one, ` +
        `as in TVM (an inner pipeline's prologue, body and epilogue are three statements)`;
  for (const [key, list] of [
    [PIPELINE_STAGE, annotation.stages],
    [PIPELINE_ORDER, annotation.orders],
  ] as const) {
    if (list.length !== count) {
      throw pipelineError(
        loop,
        `has ${key} = [${list.join(", ")}] with ${list.length} entr${list.length === 1 ? "y" : "ies"}, but its body has ` +
          `${count} statement${count === 1 ? "" : "s"} to pipeline (one entry per statement${opened})`,
      );
    }
  }
  const sorted = [...annotation.orders].sort((a, b) => a - b);
  if (sorted.some((o, i) => o !== i)) {
    throw pipelineError(
      loop,
      `has ${PIPELINE_ORDER} = [${annotation.orders.join(", ")}], which is not a permutation of 0..${count - 1}: ` +
        `each statement needs its own position in the pipelined body`,
    );
  }
  for (const s of annotation.asyncStages) {
    if (!annotation.stages.includes(s)) {
      throw pipelineError(loop, `has ${PIPELINE_ASYNC_STAGES} naming stage ${s}, but no statement is in stage ${s}`);
    }
  }
}

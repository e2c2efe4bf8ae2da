/**
 * The annotation keys the compiler understands, each with the value it expects and what it means.
 * One registry for the schedule (`annotate` rejects a known key with a value of the wrong type)
 * and for lowering (which reads these keys and reports the same problem for IR built or parsed
 * without the schedule). Unknown keys are not checked: as in TVM, blocks and loops may carry
 * arbitrary annotations.
 */
import { printExpr } from "./printer/index.js";
import type { AttrValue } from "./stmt.js";

/** Where an annotation is meaningful. */
export type AnnotationSite = "loop" | "block" | "loop or block";

export interface AnnotationKeySpec {
  readonly key: string;
  readonly site: AnnotationSite;
  /** The expected value, in words: "a non-negative integer". */
  readonly expected: string;
  /** What the annotation does, for the documentation and error messages. */
  readonly meaning: string;
  /** The pass or postprocessor that reads it. */
  readonly readBy: string;
  readonly accepts: (value: AttrValue) => boolean;
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** The integer an annotation value stands for: a JS integer or an integer `IntImm` (not a bool). */
export function annotationInt(value: AttrValue): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
  if (isIntImm(value) && value.dtype !== "bool") return value.value;
  return undefined;
}

/** The flag a 0/1-or-boolean annotation value stands for (TVM accepts `1`, `0`, `True`, `False`). */
export function annotationFlag(value: AttrValue): boolean | undefined {
  if (typeof value === "boolean") return value;
  const n = typeof value === "number" ? value : isIntImm(value) ? value.value : undefined;
  return n === 0 ? false : n === 1 ? true : undefined;
}

function isIntImm(value: AttrValue): value is { kind: "IntImm"; dtype: string; value: number } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value as { kind?: unknown }).kind === "IntImm";
}

const isInt = (v: AttrValue): boolean => annotationInt(v) !== undefined;
const isNonNegativeInt = (v: AttrValue): boolean => (annotationInt(v) ?? -1) >= 0;
const isPositiveInt = (v: AttrValue): boolean => (annotationInt(v) ?? 0) > 0;
const isFlag = (v: AttrValue): boolean => annotationFlag(v) !== undefined;
const isNonNegativeIntArray = (v: AttrValue): boolean => Array.isArray(v) && (v as readonly AttrValue[]).every(isNonNegativeInt);
const isDimAlignList = (v: AttrValue): boolean =>
  Array.isArray(v) && (v as readonly AttrValue[]).every((t) => Array.isArray(t) && t.length === 4 && (t as readonly AttrValue[]).every(isInt));

function spec(key: string, site: AnnotationSite, expected: string, accepts: (value: AttrValue) => boolean, readBy: string, meaning: string): AnnotationKeySpec {
  return { key, site, expected, accepts, readBy, meaning };
}

const NON_NEGATIVE_INT = "a non-negative integer";
const NON_NEGATIVE_INTS = "an array of non-negative integers";

/** The registry, in documentation order. */
export const ANNOTATION_KEYS: readonly AnnotationKeySpec[] = [
  spec(
    "pragma_auto_unroll_max_step",
    "loop or block",
    NON_NEGATIVE_INT,
    isNonNegativeInt,
    "unrollLoop",
    "inside its subtree, a serial loop of constant extent with no ordinary loop inside is unrolled when extent × statements of its body ≤ this (TVM UnrollLoop's auto_max_step)",
  ),
  spec(
    "pragma_unroll_explicit",
    "loop or block",
    "0, 1 or a boolean",
    isFlag,
    "unrollLoop",
    "inside its subtree, 1: unrolled loops are expanded by repeating the body; 0: they stay loops marked `#pragma unroll`",
  ),
  spec(
    "launch_bounds_min_blocks_per_sm",
    "loop or block",
    "a positive integer",
    isPositiveInt,
    "splitHostDevice, CUDA codegen",
    "on a loop or block of a kernel's launch nest: the kernel is declared `__launch_bounds__(threads, n)`, asking for n resident blocks per SM",
  ),
  spec(
    "software_pipeline_stage",
    "loop",
    NON_NEGATIVE_INTS,
    isNonNegativeIntArray,
    "software pipelining",
    "the pipeline stage of each statement of the loop body",
  ),
  spec(
    "software_pipeline_order",
    "loop",
    NON_NEGATIVE_INTS,
    isNonNegativeIntArray,
    "software pipelining",
    "the order of the statements of the loop body in the pipelined loop",
  ),
  spec(
    "software_pipeline_async_stages",
    "loop",
    NON_NEGATIVE_INTS,
    isNonNegativeIntArray,
    "software pipelining",
    "the stages whose producers run as asynchronous copies",
  ),
  spec(
    "buffer_dim_align",
    "block",
    "an array of [buffer_index, axis, factor, offset] integer 4-tuples",
    isDimAlignList,
    "compactBufferAllocation (set by storageAlign)",
    "pads the strides of the block's written buffers so that stride[axis] % factor == offset",
  ),
  spec(
    "buffer_swizzle",
    "block",
    "an array of [buffer_index, index map] pairs",
    (v) =>
      Array.isArray(v) && (v as readonly AttrValue[]).every((e) => Array.isArray(e) && e.length === 2 && isNonNegativeInt((e as readonly AttrValue[])[0]!)),
    "injectBufferSwizzle (set by swizzleLayout)",
    "stores the block's written shared buffers in a swizzled (XOR-permuted) layout: element x where the index map's image of x is in the plain layout",
  ),
  spec(
    "tma_copy",
    "block",
    "0, 1 or a boolean",
    isFlag,
    "lowerTmaCopy (sm_90)",
    "1 on the copy block of a global → shared tile in an async stage of a software pipeline: the copy becomes TMA boxes (cp.async.bulk.tensor.2d, the box derived from the tile's swizzled layout) issued by one thread, completing on a full mbarrier per pipeline version that the stage's consumers wait for, instead of cp.async by every thread",
  ),
  spec(
    "meta_schedule.cooperative_fetch",
    "block",
    "an integer",
    isInt,
    "MetaSchedule RewriteCooperativeFetch",
    "the vector width of a cooperative (all threads of the block) fetch into shared memory",
  ),
  spec(
    "meta_schedule.unroll_explicit",
    "block",
    "an integer",
    isInt,
    "MetaSchedule RewriteParallelVectorizeUnroll",
    "max unroll step for the blocks below; becomes pragma_auto_unroll_max_step with pragma_unroll_explicit = 1 on their outermost loops",
  ),
  spec(
    "meta_schedule.unroll_implicit",
    "block",
    "an integer",
    isInt,
    "MetaSchedule RewriteParallelVectorizeUnroll",
    "as meta_schedule.unroll_explicit, with pragma_unroll_explicit = 0",
  ),
];

const BY_KEY: ReadonlyMap<string, AnnotationKeySpec> = new Map(ANNOTATION_KEYS.map((s) => [s.key, s]));

export function annotationKeySpec(key: string): AnnotationKeySpec | undefined {
  return BY_KEY.get(key);
}

/** How a value reads in an error message: `the string "16"`, `the number -1`, `the array [0, -1]`. */
export function describeAttrValue(value: AttrValue): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `the boolean ${value}`;
  if (Array.isArray(value)) return `the array ${attrText(value)}`;
  if (isPrimExpr(value)) return `the expression ${printExpr(value)}`;
  return `the dictionary ${attrText(value)}`;
}

function isPrimExpr(value: AttrValue): value is Extract<AttrValue, { kind: string; dtype: string }> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { kind?: unknown }).kind === "string" && "dtype" in value;
}

function attrText(value: AttrValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object" || value === null) return String(value);
  if (Array.isArray(value)) return `[${(value as readonly AttrValue[]).map(attrText).join(", ")}]`;
  if (isPrimExpr(value)) return printExpr(value);
  return `{${Object.entries(value as Record<string, AttrValue>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${attrText(v)}`)
    .join(", ")}}`;
}

/**
 * The problem with `value` for a known `key`, as a sentence naming the owner (`loop i_0`,
 * `block C`), the key, the expected type and the value; undefined when the key is unknown or the
 * value fits.
 */
export function annotationValueProblem(owner: string, key: string, value: AttrValue): string | undefined {
  const s = BY_KEY.get(key);
  if (s === undefined || s.accepts(value)) return undefined;
  return `The annotation "${key}" of ${owner} expects ${s.expected}, got ${describeAttrValue(value)}`;
}

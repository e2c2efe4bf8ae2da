/**
 * Loop and block annotations that become attribute statements when lowerOpaqueBlock removes
 * blocks (TVM LowerOpaqueBlock): every `pragma_*` key keeps its name
 * (`AttrStmt("pragma_auto_unroll_max_step", None, 16)`), and `launch_bounds_min_blocks_per_sm`
 * becomes TVM's `tirx.launch_bounds_min_blocks_per_sm` for splitHostDevice. The attributes wrap
 * the lowered loop or block in key order; the other loop annotations stay on the loop, the other
 * block annotations are dropped. Values of known keys are checked against the registry in
 * @tessera/ir first, so IR that did not go through `annotate` gets the same error.
 */
import {
  type Annotations,
  type AttrValue,
  type PrimExpr,
  type Stmt,
  annotationValueProblem,
  attrStmt,
  boolImm,
  describeAttrValue,
  floatImm,
  intImm,
  stringImm,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { LAUNCH_BOUNDS_ANNOTATION, LAUNCH_BOUNDS_ATTR } from "../kernel/launch-bounds.js";

export interface AnnotationAttr {
  readonly key: string;
  readonly value: PrimExpr;
}

export interface SplitAnnotations {
  /** Attributes to wrap around the lowered statement, sorted by key. */
  readonly attrs: readonly AnnotationAttr[];
  /** The annotations that stay on a loop. */
  readonly kept: Annotations;
}

function attrKeyOf(key: string): string | undefined {
  if (key.startsWith("pragma_")) return key;
  if (key === LAUNCH_BOUNDS_ANNOTATION) return LAUNCH_BOUNDS_ATTR;
  return undefined;
}

/** Splits `annotations` of `owner` (`loop i`, `block C`) into attributes and kept annotations. */
export function splitAnnotations(pass: string, owner: string, annotations: Annotations): SplitAnnotations {
  const attrs: AnnotationAttr[] = [];
  const kept: Record<string, AttrValue> = {};
  for (const [key, value] of Object.entries(annotations)) {
    const problem = annotationValueProblem(owner, key, value);
    if (problem !== undefined) throw new LoweringError(pass, problem);
    const attrKey = attrKeyOf(key);
    if (attrKey === undefined) kept[key] = value;
    else attrs.push({ key: attrKey, value: attrValueExpr(pass, owner, key, value) });
  }
  attrs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { attrs, kept };
}

/** `body` inside the attributes, the first one outermost. */
export function wrapInAttrs(attrs: readonly AnnotationAttr[], body: Stmt): Stmt {
  return attrs.reduceRight<Stmt>((inner, a) => attrStmt(a.key, undefined, a.value, inner), body);
}

/** An annotation value as an attribute's value: numbers, booleans, strings and expressions. */
function attrValueExpr(pass: string, owner: string, key: string, value: AttrValue): PrimExpr {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return floatImm(value);
    return intImm(value, Math.abs(value) < 2 ** 31 ? "int32" : "int64");
  }
  if (typeof value === "boolean") return boolImm(value);
  if (typeof value === "string") return stringImm(value);
  if (!Array.isArray(value) && typeof (value as { kind?: unknown }).kind === "string" && "dtype" in value) return value as PrimExpr;
  throw new LoweringError(
    pass,
    `The annotation "${key}" of ${owner} becomes an attribute statement, whose value is a number, boolean, string or expression; got ${describeAttrValue(value)}`,
  );
}

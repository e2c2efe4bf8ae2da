/**
 * `__launch_bounds__(threads, minBlocksPerSM)`: where a kernel's minimum of resident blocks per
 * SM comes from, and how lowering collects it.
 *
 * - the loop/block annotation `launch_bounds_min_blocks_per_sm` (on any loop or block of the
 *   launch nest, typically the blockIdx loop), which lowerOpaqueBlock turns into an
 *   `AttrStmt("tirx.launch_bounds_min_blocks_per_sm", None, n)` — TVM's in-body form;
 * - that attribute written directly in lowered TVMScript;
 * - the function attribute `tirx.launch_bounds_min_blocks_per_sm` (TVM HEAD) or its classic
 *   spelling `tir.launch_bounds_min_blocks_per_sm`, which applies to every kernel.
 *
 * splitHostDevice removes the attributes from the kernel body; all values a kernel gets must
 * agree (a kernel has one `__launch_bounds__`), and each must be a positive integer.
 */
import { type AttrStmt, type PrimExpr, type PrimFunc, type Stmt, annotationInt, describeAttrValue, IRMutator } from "@tessera/ir";

/** The annotation a schedule puts on a loop or block. */
export const LAUNCH_BOUNDS_ANNOTATION = "launch_bounds_min_blocks_per_sm";
/** The attribute key in lowered code and on functions (TVM HEAD's `kLaunchBoundsMinBlocksPerSM`). */
export const LAUNCH_BOUNDS_ATTR = "tirx.launch_bounds_min_blocks_per_sm";
/** Every spelling accepted on a function or an attribute statement. */
const LAUNCH_BOUNDS_KEYS: readonly string[] = [LAUNCH_BOUNDS_ATTR, "tir.launch_bounds_min_blocks_per_sm"];

export function isLaunchBoundsAttr(s: Stmt): boolean {
  return s.kind === "AttrStmt" && LAUNCH_BOUNDS_KEYS.includes(s.key);
}

/** One value a kernel got, with where it came from (for the conflict message). */
export interface LaunchBoundsValue {
  readonly value: number;
  readonly from: string;
}

type Fail = (detail: string) => never;

function positive(value: Parameters<typeof annotationInt>[0], what: string, fail: Fail): number {
  const n = annotationInt(value);
  if (n === undefined || n <= 0) fail(`${what} must be a positive integer (the minimum of resident blocks per SM), got ${describeAttrValue(value)}`);
  return n!;
}

/** The function attribute's value(s), one per spelling present. */
export function functionLaunchBounds(func: PrimFunc, fail: Fail): LaunchBoundsValue[] {
  return LAUNCH_BOUNDS_KEYS.flatMap((key) => {
    const v = func.attrs[key];
    return v === undefined ? [] : [{ value: positive(v, `the function attribute ${key}`, fail), from: `the function attribute ${key}` }];
  });
}

/** The value of a launch-bounds attribute statement. */
export function attrLaunchBounds(s: AttrStmt, fail: Fail): LaunchBoundsValue {
  return { value: positive(s.value, `the attribute ${s.key}`, fail), from: "an attribute in the launch nest (a launch_bounds_min_blocks_per_sm annotation)" };
}

/** The kernel body without its launch-bounds attributes, and their values. */
export function extractLaunchBounds(body: Stmt, fail: Fail): { body: Stmt; values: LaunchBoundsValue[] } {
  const extractor = new LaunchBoundsExtractor(fail);
  return { body: extractor.visitStmt(body), values: extractor.values };
}

class LaunchBoundsExtractor extends IRMutator {
  readonly values: LaunchBoundsValue[] = [];

  constructor(private readonly fail: Fail) {
    super();
  }

  /** Statements without a launch-bounds attribute, which come out unchanged (unrolled code repeats them). */
  private readonly unchanged = new Set<Stmt>();

  override visitStmt(s: Stmt): Stmt {
    if (this.unchanged.has(s)) return s;
    if (s.kind !== "AttrStmt" || !isLaunchBoundsAttr(s)) {
      const out = super.visitStmt(s);
      if (out === s) this.unchanged.add(s);
      return out;
    }
    this.values.push(attrLaunchBounds(s, this.fail));
    return this.visitStmt(s.body);
  }

  /** Attributes are statements: expressions hold none, so they are not walked. */
  override visitExpr(e: PrimExpr): PrimExpr {
    return e;
  }
}

/** The one minimum every source agrees on, or undefined when there is none. */
export function agreedMinBlocks(values: readonly LaunchBoundsValue[], fail: Fail): number | undefined {
  const first = values[0];
  if (first === undefined) return undefined;
  const other = values.find((v) => v.value !== first.value);
  if (other !== undefined) {
    fail(
      `conflicting ${LAUNCH_BOUNDS_ATTR} values: ${first.value} from ${first.from} and ${other.value} from ${other.from}; ` +
        "a kernel has one __launch_bounds__, so annotate one loop or block of its launch nest (or agree on the value)",
    );
  }
  return first.value;
}

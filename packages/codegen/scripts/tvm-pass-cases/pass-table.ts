/**
 * Which TVM test file measures which of our passes (for `tvm-pass-cases.ts`), and what TVM's test
 * runs around the pass (most follow it with StmtSimplify, here our simplify pass with TVM's own
 * simplifier; the compaction test simplifies both sides).
 */
import type { PrimFunc } from "@tessera/ir";
import {
  compactBufferAllocation,
  convertBlocksToOpaque,
  flattenBuffer,
  injectSoftwarePipeline,
  lowerMatchBuffer,
  lowerOpaqueBlock,
  planBufferAllocation,
  removeNoOp,
  simplifyFunc,
  unifyThreadBinding,
} from "../../src/lower/passes/index.js";

type Options = Readonly<Record<string, boolean | number>>;

export interface PassUnderTest {
  readonly name: string;
  /** The TVM test file, relative to the repository root. */
  readonly file: string;
  readonly run: (func: PrimFunc, options: Options) => PrimFunc;
  /** What the test applies to its expected function too, if anything. */
  readonly normalizeExpected?: (func: PrimFunc, options: Options) => PrimFunc;
}

const S_TIR = "tests/python/s_tir/transform/test_s_tir_transform_";
const TIRX = "tests/python/tirx-transform/test_tir_transform_";

/** TVM's Simplify (StmtSimplify): our simplify pass with TVM's own simplifier. */
const tvmSimplify = (f: PrimFunc): PrimFunc => simplifyFunc(f, { tvmSimplifier: true });

const thenSimplify =
  (pass: (f: PrimFunc) => PrimFunc) =>
  (f: PrimFunc): PrimFunc =>
    tvmSimplify(pass(f));

export const PASS_TABLE: readonly PassUnderTest[] = [
  {
    name: "PlanAndUpdateBufferAllocationLocation",
    file: `${S_TIR}plan_update_buffer_allocation_location.py`,
    run: (f) => planBufferAllocation(f, { onHost: true }),
  },
  { name: "ConvertBlocksToOpaque", file: `${S_TIR}convert_blocks_to_opaque.py`, run: thenSimplify(convertBlocksToOpaque) },
  {
    name: "CompactBufferAllocation",
    file: `${S_TIR}compact_buffer_region.py`,
    run: (f, o) => removeNoOp(tvmSimplify(compactBufferAllocation(f, { strict: o.is_strict_mode !== false }))),
    normalizeExpected: (f) => removeNoOp(tvmSimplify(f)),
  },
  { name: "InjectSoftwarePipeline", file: `${S_TIR}inject_software_pipeline.py`, run: thenSimplify(injectSoftwarePipeline) },
  { name: "LowerOpaqueBlock", file: `${S_TIR}lower_opaque_block.py`, run: thenSimplify(lowerOpaqueBlock) },
  {
    name: "FlattenBuffer",
    file: `${TIRX}flatten_buffer.py`,
    run: (f) => tvmSimplify(flattenBuffer(f, { paramAliases: true, outerStrideSize: true, tvmForms: true })),
  },
  { name: "RemoveNoOp", file: `${TIRX}remove_no_op.py`, run: (f) => removeNoOp(f) },
  { name: "UnifyThreadBinding", file: `${S_TIR}unify_thread_binding.py`, run: thenSimplify(unifyThreadBinding) },
  { name: "LowerMatchBuffer", file: `${S_TIR}lower_match_buffer.py`, run: thenSimplify(lowerMatchBuffer) },
  {
    name: "Simplify",
    file: `${TIRX}simplify.py`,
    run: (f, o) =>
      simplifyFunc(f, {
        tvmSimplifier: true,
        transitivelyProveInequalities: o.transitively_prove_inequalities === true,
        applyConstraintsToBooleanBranches: o.apply_constraints_to_boolean_branches === true,
        convertBooleanToAndOfOrs: o.convert_boolean_to_and_of_ors === true,
      }),
  },
];

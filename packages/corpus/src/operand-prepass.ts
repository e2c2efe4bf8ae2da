/** The layout-rewrite pre-passes moved to @tessera/schedule (the tensor-core design spaces create them too); re-exported for the corpus's kernels. */
export { rowMajorPrePass, transposingPrePass, transposingPrePasses } from "@tessera/schedule";

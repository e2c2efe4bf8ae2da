/** Postprocessors (DisallowDynamicLoop and RewriteUnboundBlock add their lines here). */
export * from "./rewrite-cooperative-fetch.js";
export * from "./rewrite-shared-layout.js";
export * from "./rewrite-operand-slices.js";
export * from "./rewrite-write-back.js";
export * from "./rewrite-software-pipeline.js";
export * from "./rewrite-launch-bounds.js";
export * from "./rewrite-parallel-vectorize-unroll.js";
export * from "./rewrite-reduction-block.js";
export * from "./verify-gpu-code.js";

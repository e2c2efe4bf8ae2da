/** Mutators (MutateUnroll, MutateComputeLocation and MutateThreadBinding add their lines here). */
export * from "./mutate-tile-size.js";
export * from "./mutate-gemm-knob.js";
export { categoricalsFeeding, categoricalsSplitting } from "./sampled-annotations.js";

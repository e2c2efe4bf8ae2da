export * from "./mutate-unroll.js";
export * from "./mutate-compute-location.js";
export * from "./mutate-thread-binding.js";
export * from "./mutate-parallel.js";
export * from "./mutate-tile-size.js";
export * from "./mutate-gemm-knob.js";
export { categoricalsFeeding, categoricalsSplitting } from "./sampled-annotations.js";
export * from "./mutate-tile-shape.js";

/** The CPU schedules of "Dive into Deep Learning Compiler" and the shape-derived factors they use (`@tessera/corpus/d2l-cpu`). */
export * from "./schedules.js";
export * from "./factors.js";
export * from "./machine.js";

/** State shared by the expression and statement emitters of one kernel. */
import type { DType, Var } from "@tessera/ir";
import { CodegenError } from "./errors.js";
import type { IndexFacts } from "../c-family/index-facts.js";
import type { NameTable } from "../c-family/names.js";
import type { Feature } from "./preamble.js";

/** A pointer or array the kernel can index: a parameter or an allocation. */
export interface Storage {
  /** Its C name. */
  readonly name: string;
  /** Element type of the pointer/array. */
  readonly dtype: DType;
}

export interface EmitContext {
  readonly kernelName: string;
  readonly names: NameTable;
  readonly facts: IndexFacts;
  /** Preamble helpers the kernel uses. */
  readonly features: Set<Feature>;
  /** By the storage's `data` variable. */
  readonly storage: Map<Var, Storage>;
  /** Thread-index variables and their C spelling, e.g. `((int)threadIdx.x)`. */
  readonly threadIndex: Map<Var, string>;
  /** Storage read or written through a reinterpreted vector pointer (needs vector alignment). */
  readonly vectorAccessed: Set<Var>;
  /** Storage WMMA loads and stores point into (mma.h needs 256-bit aligned pointers). */
  readonly wmmaAccessed: Set<Var>;
}

export function fail(ctx: EmitContext, detail: string): never {
  throw new CodegenError(ctx.kernelName, detail);
}

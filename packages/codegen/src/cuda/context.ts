/** State shared by the expression and statement emitters of one kernel. */
import type { Var } from "@tessera/ir";
import { CodegenError } from "./errors.js";
import type { StorageRef, WalkerContext } from "../walker/expr-walker.js";
import type { Feature } from "./preamble.js";

/** A pointer or array the kernel can index: a parameter or an allocation. */
export type Storage = StorageRef;

/** `predefined`: thread-index variables and their C spelling, e.g. `((int)threadIdx.x)`. */
export interface EmitContext extends WalkerContext<Storage> {
  /** Preamble helpers the kernel uses. */
  readonly features: Set<Feature>;
  /** Storage read or written through a reinterpreted vector pointer (needs vector alignment). */
  readonly vectorAccessed: Set<Var>;
  /** Storage WMMA loads and stores point into (mma.h needs 256-bit aligned pointers). */
  readonly wmmaAccessed: Set<Var>;
}

export function fail(ctx: EmitContext, detail: string): never {
  throw new CodegenError(ctx.kernelName, detail);
}

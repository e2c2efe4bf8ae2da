/** A task's manifest arguments, for a sandboxed job (block names travel as names) or a trusted call. */
import type { Schedule } from "@tessera/schedule";
import { type TaskArg, resolveSize } from "../manifest/index.js";
import type { JobArg } from "../sandbox/index.js";

export function jobArgs(args: readonly TaskArg[], tiles: Record<string, number>): JobArg[] {
  return args.map((a) => (typeof a === "object" ? { block: a.block } : resolveSize(a, tiles)));
}

export function trustedArgs(sch: Schedule, args: readonly TaskArg[], tiles: Record<string, number>): unknown[] {
  return args.map((a) => (typeof a === "object" ? sch.getBlock(a.block) : resolveSize(a, tiles)));
}

/**
 * Finding the scope block of a block (TVM's `GetScopeRoot`), optionally requiring the scope to be a
 * stage pipeline. Shared by compute-at, compute-inline and friends.
 */
import type { Block } from "@tessera/ir";
import { ScheduleError } from "../errors.js";
import type { BlockEntry, TreeIndex } from "../state/tree-index.js";
import { BlockScope } from "./scope.js";

/** The primitive was applied to the root block, which has no enclosing scope. */
export class RootBlockError extends ScheduleError {
  override name = "RootBlockError";
  constructor(primitive: string) {
    super(primitive, "The primitive does not operate on the root block");
  }
}

/** The scope has a write-after-read dependency, so blocks cannot be moved freely inside it. */
export class NotStagePipelineError extends ScheduleError {
  override name = "NotStagePipelineError";
  constructor(primitive: string, scopeRoot: Block) {
    super(
      primitive,
      `The scope ${scopeRoot.name} is not a stage pipeline.\n` +
        "Definition of a scope that is a stage pipeline:\n" +
        "- The region cover property holds for every of its child blocks\n" +
        "- No write-after-read dependency or opaque dependency,\n" +
        "- only read-after-write and write-after-write are allowed\n" +
        "- All the statements in the scope are schedulable statements, i.e. Block and For",
      [scopeRoot],
    );
  }
}

export interface ScopeRoot {
  readonly root: BlockEntry;
  readonly scope: BlockScope;
}

/**
 * The nearest enclosing block of `blk` and the dependencies among its children. Stage-pipeline
 * approximation: the children have no WAR dependency (region cover is not checked).
 */
export function getScopeRoot(index: TreeIndex, blk: BlockEntry, primitive: string, requireStagePipeline: boolean): ScopeRoot {
  const root = index.scopeOf(blk);
  if (root === undefined) throw new RootBlockError(primitive);
  const scope = new BlockScope(index, root);
  if (requireStagePipeline && scope.deps.some((d) => d.kind === "WAR")) {
    throw new NotStagePipelineError(primitive, root.node);
  }
  return { root, scope };
}

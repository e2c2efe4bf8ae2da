/**
 * Lookups: getBlock, getLoops, getChildBlocks, getProducers, getConsumers (pure instructions).
 */
import { ScheduleError, ScheduleUsageError } from "../errors.js";
import { LoopRV } from "../handles.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../instruction.js";
import { scopeOfBlock } from "../analysis/scope.js";

export class BlockNotFoundError extends ScheduleError {
  override name = "BlockNotFoundError";
}

export const GET_BLOCK: InstructionKind = registerInstruction({
  name: "GetBlock",
  method: "getBlock",
  pure: true,
  singleOutput: true,
  attrNames: ["name", "func_name"],
  apply(ctx, _inputs, attrs) {
    const [name, funcName] = attrs;
    if (typeof name !== "string") throw new ScheduleUsageError("get-block", `the block name must be a string, got ${String(name)}`);
    if (typeof funcName === "string" && funcName !== ctx.state.funcName) {
      if (!ctx.state.mod.functions.has(funcName)) {
        throw new ScheduleUsageError("get-block", `the module has no function named "${funcName}"`);
      }
      ctx.funcName = funcName;
    }
    const found = ctx.index.blocksNamed(name);
    if (found.length === 0) {
      const known = ctx.index.blocks.map((b) => `"${b.node.name}"`).join(", ");
      throw new BlockNotFoundError("get-block", `Cannot find a block with the name: ${name} (blocks in the function: ${known})`);
    }
    if (found.length > 1) {
      throw new BlockNotFoundError(
        "get-block",
        `Found ${found.length} blocks with the name: ${name}. Block names need not be unique (as in TVM, ` +
          `e.g. two cacheRead stages of one buffer); use the handle returned by the primitive that made the ` +
          `block, or getChildBlocks / getProducers / getConsumers`,
        found.map((b) => b.node),
      );
    }
    return { outputs: [ctx.blockRV(found[0]!)] };
  },
  formatArgs(_inputs, attrs) {
    const [name, funcName] = attrs;
    return funcName === undefined || funcName === null || funcName === "main" ? tsLiteral(name) : `${tsLiteral(name)}, ${tsLiteral(funcName)}`;
  },
});

export const GET_LOOPS: InstructionKind = registerInstruction({
  name: "GetLoops",
  method: "getLoops",
  pure: true,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    const blk = ctx.block(inputs[0], "get-loops");
    return { outputs: ctx.index.loopsAbove(blk).map((l) => ctx.loopRV(l)) };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});

export const GET_CHILD_BLOCKS: InstructionKind = registerInstruction({
  name: "GetChildBlocks",
  method: "getChildBlocks",
  pure: true,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    const parent = inputs[0] instanceof LoopRV ? ctx.loop(inputs[0], "get-child-blocks") : ctx.block(inputs[0], "get-child-blocks");
    return { outputs: ctx.index.childBlocks(parent).map((b) => ctx.blockRV(b)) };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});

export const GET_PRODUCERS: InstructionKind = registerInstruction({
  name: "GetProducers",
  method: "getProducers",
  pure: true,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    const blk = ctx.block(inputs[0], "get-producers");
    return {
      outputs: scopeOfBlock(ctx.index, blk)
        .producersOf(blk)
        .map((b) => ctx.blockRV(b)),
    };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});

export const GET_CONSUMERS: InstructionKind = registerInstruction({
  name: "GetConsumers",
  method: "getConsumers",
  pure: true,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    const blk = ctx.block(inputs[0], "get-consumers");
    return {
      outputs: scopeOfBlock(ctx.index, blk)
        .consumersOf(blk)
        .map((b) => ctx.blockRV(b)),
    };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});

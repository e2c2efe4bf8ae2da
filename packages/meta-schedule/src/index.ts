/**
 * @tessera/meta-schedule — TVM's MetaSchedule in TypeScript: design-space generators (schedule
 * functions, unions, post-order application of schedule rules), postprocessors, mutators,
 * replay-trace and evolutionary search with a learned cost model, a JSON tuning database, a
 * parallel builder, runners (an isolated GPU runner, a deterministic simulated runner), task
 * schedulers and `tuneTIR`.
 */
export * from "./errors.js";
export * from "./workload.js";
export * from "./arg-info.js";
export * from "./tune-context.js";
export * from "./rules/schedule-rule.js";
export * from "./postproc/postproc.js";
export * from "./mutator/mutator.js";
export * from "./space/space-generator.js";
export * from "./space/replay.js";
export * from "./search/search-strategy.js";
export * from "./builder/builder.js";
export * from "./runner/runner.js";
export * from "./database/database.js";
export * from "./cost-model/index.js";
export * from "./feature/index.js";

/**
 * The grading manifest: what the autograder checks for an assignment, as data. Each task lists
 * declarative checks (a `kind` the autograder interprets, its parameters, a description in the
 * student's terms and points); numerics, timing and the tuned-time score table are settings.
 *
 * Sizes in checks are numbers or tile-size names from `manual.tileSizes`, optionally as a
 * quotient ("tileX/threadTileX"), so the checks follow the tile sizes instead of repeating them.
 *
 * Part-1 tasks run in order on one schedule, with the course's tile sizes; a task's checks look
 * at the schedule right after its function returns (so task 1's "tileX loop" is still whole even
 * though task 2 splits it later). Checks select loops by role (axis and level), never by an
 * extent that an earlier mistake could have changed, so each mistake fails the one check that
 * names it. A task that throws or whose trace cannot be replayed is replaced by the solution's
 * version for the tasks after it; a task that only misses checks keeps the student's schedule
 * (see grade/chain.ts).
 */
import { z } from "zod";

// ---- building blocks -------------------------------------------------------------------------

const kebabId = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be kebab-case (a-z, 0-9, -)");

/** A loop extent or tile size: a number, a tile-size name, or "name/name". */
export const SizeSchema = z.union([
  z.number().int().positive(),
  z.string().regex(/^[A-Za-z]\w*(\/[A-Za-z]\w*)?$/, 'must be a positive integer, a tile-size name, or "name/name"'),
]);
export type Size = z.infer<typeof SizeSchema>;

export const ThreadTagSchema = z.enum(["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"]);
export type ThreadTag = z.infer<typeof ThreadTagSchema>;

/** The workload's iteration axes by role: i (rows of the output), j (columns), k (reduction). */
export const AxisSchema = z.enum(["i", "j", "k"]);
export type Axis = z.infer<typeof AxisSchema>;

/**
 * A loop around a block by its role rather than its extent: the loops over `axis` (those whose
 * iterator feeds the block's `axis` iterator), outermost first, numbered from 0 — so for a matrix
 * product after both tiling tasks' splits, i level 0 is the block loop, 1 the thread loop, 2 the register loop. With
 * `andInner` it stands for that level and every level inside it. A level that does not exist (the
 * axis was not split that far) selects nothing, and the check judges the loops that do exist: the
 * split check names a missing split.
 */
export const LoopRoleSchema = z.strictObject({
  axis: AxisSchema,
  level: z.number().int().nonnegative(),
  andInner: z.boolean().optional(),
  /** The loop's name in the handout's words ("the k-chunk loop"), for feedback. */
  name: z.string().min(1),
});
export type LoopRole = z.infer<typeof LoopRoleSchema>;

/** Where a copy stage is computed: the innermost loop of the consumer that also encloses it. */
export const AttachPointSchema = z.enum([
  /** The outermost loop over k (task 1's k-chunk loop). */
  "k-chunk",
  /** The innermost loop over k (one k step). */
  "innermost-k",
  /** The innermost loop bound to a threadIdx tag (one thread's tile). */
  "innermost-thread",
  /** The loop bound to threadIdx.y (the handout's words for task 4, also right when task 2 swapped the thread bindings). */
  "thread-y",
]);
export type AttachPoint = z.infer<typeof AttachPointSchema>;

const checkBase = {
  id: kebabId,
  /** Shown to the student when the check fails, and in the report. */
  description: z.string().min(1),
  points: z.number().nonnegative(),
};

// ---- check kinds -----------------------------------------------------------------------------

/** `block`'s loops over `axis` were split so that an inner loop has extent `factor`. */
const SplitCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("split"),
  block: z.string().min(1),
  axis: AxisSchema,
  factor: SizeSchema,
});

/**
 * These loops around `block` are bound to these threads, and the task binds no other loop of
 * `block` (a binding it adds beyond these, compared with the schedule before the task, fails).
 */
const BindingsCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("bindings"),
  block: z.string().min(1),
  loops: z.array(z.strictObject({ ...LoopRoleSchema.shape, thread: ThreadTagSchema })).min(1),
});

/**
 * The loops around `block` come in these groups, outermost group first: every loop of a group is
 * outside every loop of the later groups (the order inside a group is free; other loops may sit
 * between).
 */
const LoopOrderCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("loop-order"),
  block: z.string().min(1),
  groups: z.array(z.array(LoopRoleSchema).min(1)).min(2),
});

/** `of` reads (or writes) `buffer` through a copy stage in `scope`, computed at one of the loops `at` lists, when given. */
const CacheStageCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("cache-stage"),
  of: z.string().min(1),
  buffer: z.string().min(1),
  direction: z.enum(["read", "write"]),
  /** Left out: any scope (a check of the placement only, when another check judges the scope). */
  scope: z.enum(["shared", "local"]).optional(),
  at: z.array(AttachPointSchema).min(1).optional(),
});

/**
 * The task's function returns the read stages of `of`, in this order (task 3 receives them). A
 * slot whose buffer has no such stage at all is not judged here: its cache-stage check is.
 */
const ReturnedStagesCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("returned-stages"),
  of: z.string().min(1),
  stages: z.array(z.strictObject({ buffer: z.string().min(1), scope: z.enum(["shared", "local"]) })).min(1),
});

/**
 * The copy of `buffer` into `scope` is shared out among the block's threads: loops of the copy are
 * bound to these threads with these extents, each thread copies its share of the chunk (chunk ÷
 * threads elements per placement, not the whole chunk) and no element is fetched twice.
 */
const CooperativeFetchCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("cooperative-fetch"),
  /** The block whose loops the copy is computed in (its k-chunk loop delimits one chunk). */
  of: z.string().min(1),
  buffer: z.string().min(1),
  scope: z.enum(["shared"]),
  threads: z.array(z.strictObject({ thread: ThreadTagSchema, extent: SizeSchema })).min(1),
});

/**
 * `block` no longer exists: it was inlined (into the write stage of `into`, the task's aim; where
 * that stage is placed or in which scope is task 4's check, not this one's).
 */
const InlinedCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("inlined"),
  block: z.string().min(1),
  into: z.strictObject({ writeStageOf: z.string().min(1), scope: z.enum(["shared", "local"]) }),
});

/** The schedule replays / builds / computes the workload correctly (settings in `numerics`). */
const NumericsCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("numerics"),
  schedule: z.enum(["manual", "tuned"]),
});

/** The submitted trace replays on a fresh full-size schedule without error. */
const TraceReplaysCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("trace-replays"),
});

/** Scored from the tuned schedule's GPU time with the `tunedScore` table. */
const TunedTimeCheck = z.strictObject({
  ...checkBase,
  kind: z.literal("tuned-time"),
});

export const CheckSchema = z.discriminatedUnion("kind", [
  SplitCheck,
  BindingsCheck,
  LoopOrderCheck,
  CacheStageCheck,
  ReturnedStagesCheck,
  CooperativeFetchCheck,
  InlinedCheck,
  NumericsCheck,
  TraceReplaysCheck,
  TunedTimeCheck,
]);
export type Check = z.infer<typeof CheckSchema>;
export type CheckKind = Check["kind"];

/** An argument after `sch`: a size (number or tile-size name) or a block looked up by name. */
export const TaskArgSchema = z.union([SizeSchema, z.strictObject({ block: z.string().min(1) })]);
export type TaskArg = z.infer<typeof TaskArgSchema>;

/**
 * What the task's function runs on: "previous-task" — the schedule the part's previous task left
 * (part-1 tasks form one chain, the first starting from the workload); "workload" — a fresh
 * full-size schedule; "none" — the function is not called, its checks look at the finished chain.
 */
export const TaskStartSchema = z.enum(["previous-task", "workload", "none"]);
export type TaskStart = z.infer<typeof TaskStartSchema>;

export const TaskSchema = z.strictObject({
  id: kebabId,
  title: z.string().min(1),
  part: z.union([z.literal(1), z.literal(2)]),
  /** The student function that implements the task (for messages and per-task isolation). */
  function: z.string().regex(/^[A-Za-z_$][\w$]*$/, "must be a function name"),
  /** The student file that exports it. */
  file: z.string().min(1),
  start: TaskStartSchema,
  /** Arguments after `sch`, resolved against `manual.tileSizes` (sizes) or the schedule (blocks). */
  args: z.array(TaskArgSchema).default([]),
  points: z.number().nonnegative(),
  checks: z.array(CheckSchema).min(1),
});
export type Task = z.infer<typeof TaskSchema>;

// ---- settings --------------------------------------------------------------------------------

export const NumericsSchema = z.strictObject({
  sizes: z.strictObject({
    /** M = N = K on a GPU. */
    full: z.number().int().positive(),
    /**
     * M = N = K of the quick pre-check without a GPU (the trace replayed at this size, tuned traces
     * rescaled to it, simulated whole); sampled blocks of the full-size kernel decide (grade/simulator-numerics.ts).
     */
    reduced: z.number().int().positive(),
  }),
  /** Rounds of fresh random inputs. */
  rounds: z.number().int().positive(),
  /** Inputs are uniform in [low, high). */
  inputRange: z.tuple([z.number(), z.number()]),
  rtol: z.number().nonnegative(),
  atol: z.number().nonnegative(),
  /** A numerically wrong schedule scores 0 for its whole part (as in the course). */
  onMismatch: z.literal("zero-part"),
});
export type Numerics = z.infer<typeof NumericsSchema>;

export const TimingSchema = z.strictObject({
  /** Kernel runs per measurement (TVM's time_evaluator `number`). */
  number: z.number().int().positive(),
  /** Measurements; the mean is reported. */
  repeat: z.number().int().positive(),
  /** Each measurement lasts at least this long (runs are added until it does). */
  minRepeatMs: z.number().nonnegative(),
});
export type Timing = z.infer<typeof TimingSchema>;

export const ThresholdSchema = z.strictObject({ maxMs: z.number().positive(), points: z.number().nonnegative() });
export type Threshold = z.infer<typeof ThresholdSchema>;

export const TunedScoreSchema = z.strictObject({
  /** Score tables by GPU name ("t4", …): the first row whose maxMs the time does not exceed. */
  thresholds: z.record(z.string().min(1), z.array(ThresholdSchema).min(1)),
  /**
   * On a GPU without a table, the `calibrationGpu` table is used with every maxMs multiplied by
   * (measured manual-schedule time) / (its manualMs in `calibration`).
   */
  otherGpus: z.strictObject({ scaleBy: z.literal("manual-schedule-time"), calibrationGpu: z.string().min(1) }),
});
export type TunedScore = z.infer<typeof TunedScoreSchema>;

export const CalibrationSchema = z.record(z.string().min(1), z.strictObject({ manualMs: z.number().positive(), naiveMs: z.number().positive() }));
export type Calibration = z.infer<typeof CalibrationSchema>;

export const TileSizesSchema = z.record(z.string().regex(/^[A-Za-z]\w*$/, "must be an identifier"), z.number().int().positive());

export const ManifestSchema = z
  .strictObject({
    assignment: kebabId,
    title: z.string().min(1),
    /** The workload the schedules start from, by the autograder's workload name. */
    workload: z.string().min(1),
    /** Total points; the tasks' points must add up to it. */
    totalPoints: z.number().positive(),
    manual: z.strictObject({ tileSizes: TileSizesSchema }),
    tasks: z.array(TaskSchema).min(1),
    numerics: NumericsSchema,
    timing: TimingSchema,
    /** How a tuned-time check scores; needed only by a manifest that has one. */
    tunedScore: TunedScoreSchema.optional(),
    /** The reference schedules' times on the calibration GPU; needed with tunedScore. */
    calibration: CalibrationSchema.optional(),
  })
  .superRefine(checkConsistency);
export type Manifest = z.infer<typeof ManifestSchema>;

// ---- cross-field rules -----------------------------------------------------------------------

type RawManifest = z.input<typeof ManifestSchema>;

function checkTunedScore(
  tunedScore: NonNullable<RawManifest["tunedScore"]>,
  calibration: RawManifest["calibration"],
  issue: (path: PropertyKey[], message: string) => void,
): void {
  for (const [gpu, rows] of Object.entries(tunedScore.thresholds)) {
    rows.forEach((row, r) => {
      const prev = rows[r - 1];
      if (prev !== undefined && !(row.maxMs > prev.maxMs && row.points <= prev.points)) {
        issue(["tunedScore", "thresholds", gpu, r], "rows must have increasing maxMs and non-increasing points");
      }
    });
  }
  const calibrationGpu = tunedScore.otherGpus.calibrationGpu;
  if (tunedScore.thresholds[calibrationGpu] === undefined) {
    issue(["tunedScore", "otherGpus", "calibrationGpu"], `no thresholds for "${calibrationGpu}"`);
  }
  if (calibration?.[calibrationGpu] === undefined) {
    issue(["tunedScore", "otherGpus", "calibrationGpu"], `no calibration times for "${calibrationGpu}"`);
  }
}

function checkConsistency(m: RawManifest, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string): void => ctx.addIssue({ code: "custom", path, message });
  const tileSizes = m.manual.tileSizes;

  const taskPoints = m.tasks.reduce((sum, t) => sum + t.points, 0);
  if (taskPoints !== m.totalPoints) issue(["tasks"], `the tasks' points add up to ${taskPoints}, not totalPoints ${m.totalPoints}`);

  const taskIds = new Set<string>();
  m.tasks.forEach((task, t) => {
    if (taskIds.has(task.id)) issue(["tasks", t, "id"], `duplicate task id "${task.id}"`);
    taskIds.add(task.id);
    const checkPoints = task.checks.reduce((sum, c) => sum + c.points, 0);
    if (checkPoints !== task.points) {
      issue(["tasks", t, "points"], `task "${task.id}" is worth ${task.points} but its checks add up to ${checkPoints}`);
    }
    const checkIds = new Set<string>();
    (task.args ?? []).forEach((arg, a) => {
      if (typeof arg === "object") return;
      const unknown = unknownSizeNames(arg, tileSizes);
      if (unknown !== undefined) issue(["tasks", t, "args", a], `"${unknown}" is not a tile size (manual.tileSizes has ${Object.keys(tileSizes).join(", ")})`);
    });
    task.checks.forEach((check, c) => {
      if (checkIds.has(check.id)) issue(["tasks", t, "checks", c, "id"], `duplicate check id "${check.id}" in task "${task.id}"`);
      checkIds.add(check.id);
      for (const { path, size } of sizesOf(check)) {
        const unknown = unknownSizeNames(size, tileSizes);
        if (unknown !== undefined) {
          issue(["tasks", t, "checks", c, ...path], `"${unknown}" is not a tile size (manual.tileSizes has ${Object.keys(tileSizes).join(", ")})`);
        }
      }
      if (check.kind === "tuned-time") {
        if (m.tunedScore === undefined) {
          issue(["tasks", t, "checks", c], `a tuned-time check needs the manifest's tunedScore table (and calibration)`);
          return;
        }
        const best = Math.max(...Object.values(m.tunedScore.thresholds).flatMap((rows) => rows.map((r) => r.points)));
        if (best !== check.points) issue(["tasks", t, "checks", c, "points"], `worth ${check.points} but the best tunedScore row gives ${best}`);
      }
    });
  });

  if (m.tunedScore !== undefined) checkTunedScore(m.tunedScore, m.calibration, issue);

  const [low, high] = m.numerics.inputRange;
  if (!(low < high)) issue(["numerics", "inputRange"], `must be [low, high] with low < high, got [${low}, ${high}]`);
  for (const which of ["full", "reduced"] as const) {
    const n = m.numerics.sizes[which];
    for (const name of ["tileX", "tileY", "tileK"]) {
      const tile = tileSizes[name];
      if (tile !== undefined && n % tile !== 0) issue(["numerics", "sizes", which], `${n} is not a multiple of ${name} = ${tile}`);
    }
  }
}

/** The Size-valued parameters of a check, with their paths inside it. */
function sizesOf(check: z.input<typeof CheckSchema>): { path: PropertyKey[]; size: Size }[] {
  const out: { path: PropertyKey[]; size: Size }[] = [];
  switch (check.kind) {
    case "split":
      out.push({ path: ["factor"], size: check.factor });
      break;
    case "cooperative-fetch":
      check.threads.forEach((th, n) => out.push({ path: ["threads", n, "extent"], size: th.extent }));
      break;
    default:
      break;
  }
  return out;
}

function unknownSizeNames(size: Size, tileSizes: Record<string, number>): string | undefined {
  if (typeof size === "number") return undefined;
  return size.split("/").find((name) => tileSizes[name] === undefined);
}

/** The value of a Size with the manifest's tile sizes (assumes the manifest was validated). */
export function resolveSize(size: Size, tileSizes: Record<string, number>): number {
  if (typeof size === "number") return size;
  const [num, den] = size.split("/").map((name) => {
    const value = tileSizes[name];
    if (value === undefined) throw new RangeError(`"${name}" is not a tile size`);
    return value;
  });
  return den === undefined ? num! : num! / den;
}

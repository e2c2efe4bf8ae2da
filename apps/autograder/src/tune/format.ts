/**
 * What `pnpm grade --tune` prints: how the samples fared, what the search did (rejections with
 * reasons, TVM's summary table, where the tuning curve is), the result, and the hand-in file
 * between BEGIN/END markers. Plain text, like the grading report.
 */
import { numericsSummary } from "../grade/grade-submission.js";
import { formatTimingWithNoise } from "../report/timing-stats.js";
import type { CheckedRecord } from "./choose.js";
import { formatDecisions } from "./design-spaces.js";
import { SEARCH_SPACE_FILE, SEARCH_SPACE_FUNCTION } from "./search-space.js";
import type { TuneResult } from "./tune.js";

/** Rejection reasons listed (the rest are summed up). */
const REJECTION_ROWS = 8;

/** The search's tally of mutation attempts that produced no candidate ("mutator M found nothing to change", "mutator M failed"). */
const MUTATOR_NO_CANDIDATE = /^mutator .* (found nothing to change|failed)$/;

/** Everything but the hand-in file. */
export function formatTuneReport(r: TuneResult): string {
  const out: string[] = [];
  const size = r.shape;
  out.push(`Tuning ${SEARCH_SPACE_FUNCTION} (${SEARCH_SPACE_FILE}) at ${size} with ${r.strategy} search: ${plural(r.trials, "trial")}, seed ${r.seed}`);
  out.push("name" in r.gpu ? `GPU: ${r.gpu.name}` : `GPU: none (${r.gpu.unavailable})`);
  out.push(`Work dir: ${r.search.workDir}`, "");
  out.push(...sampleLines(r), "");
  out.push(...searchLines(r), "");
  out.push(...resultLines(r), `(tuning took ${(r.elapsedMs / 1000).toFixed(1)} s)`);
  return `${out.join("\n")}\n`;
}

function sampleLines(r: TuneResult): string[] {
  const s = r.sampling;
  const lines = [
    `Samples: ${s.completed} calls of ${SEARCH_SPACE_FUNCTION} completed (seeds ${r.seed}–${r.seed + r.trials - 1}) → ${r.replayed} replay on the grader's workload → ` +
      `${plural(r.designSpaces, "design space")} (distinct structures; the search samples their decisions anew)`,
  ];
  if (r.notReplayed > 0 && r.notReplayedExample !== undefined) {
    lines.push(
      `  ${r.notReplayed} discarded: they do not replay on the grader's workload (for example seed ${r.notReplayedExample.seed}: ${r.notReplayedExample.detail})`,
    );
  }
  if (s.firstError !== undefined) {
    // Its first line: the rest (the IR with the error underlined) is for reproducing it with that seed.
    const first = s.firstError.message.split("\n")[0];
    lines.push(`${s.threw} of ${r.trials} calls threw and were skipped; the first, with seed ${s.firstError.seed}: ${first}`);
  }
  if (s.unfinished > 0) lines.push(`${s.unfinished} of ${r.trials} calls did not finish: ${s.unfinishedReason ?? "?"} (fewer --trials, or a larger --timeout)`);
  return lines;
}

function searchLines(r: TuneResult): string[] {
  const s = r.search;
  const how = r.measured
    ? `measured on the ${"name" in r.gpu ? r.gpu.name : "GPU"}`
    : `ESTIMATED by the simulator's latency model for ${r.target} (no GPU: nothing was measured)`;
  const lines = [`Search: ${plural(s.trials, "candidate")} ${how}${s.failed > 0 ? `; ${s.failed} failed to build or run` : ""}.`];
  if (s.firstFailure !== undefined) lines.push(`  first failure: ${s.firstFailure.split("\n")[0]}`);
  // A mutation that found nothing to change (or failed) made no candidate: it is not a rejection.
  const mutations = s.rejected.filter(([reason]) => MUTATOR_NO_CANDIDATE.test(reason));
  const candidates = s.rejected.filter(([reason]) => !MUTATOR_NO_CANDIDATE.test(reason));
  const rejected = candidates.reduce((n, [, count]) => n + count, 0);
  if (rejected > 0) {
    lines.push(`Candidates the search rejected before measuring (${rejected}), by reason:`);
    const reasons = groupNumbers(candidates.map(([reason, n]) => [inCourseWords(reason, r.limits), n] as const));
    const shown = reasons.slice(0, REJECTION_ROWS);
    const width = String(Math.max(...shown.map(([, n]) => n))).length;
    for (const [reason, n] of shown) lines.push(`  ${String(n).padStart(width)} ${reason}`);
    const rest = reasons.slice(REJECTION_ROWS).reduce((n, [, count]) => n + count, 0);
    if (rest > 0) lines.push(`  ${rest} for other reasons (see the logs in the work dir)`);
    if (s.rejected.some(([reason]) => /does not replay/.test(reason))) {
      lines.push(`  (A trace whose structure depends on a sampled value replays only with decisions that give the same structure.)`);
    }
  }
  const noops = mutations.reduce((n, [, count]) => n + count, 0);
  if (noops > 0) lines.push(`Mutation attempts that made no candidate (not rejections; the search picks another parent): ${noops}.`);
  lines.push("", s.summary.trimEnd());
  if (s.curve !== undefined) lines.push(`Tuning curve: ${s.curve}`);
  return lines;
}

/**
 * A candidate over the GPU's limits in the words of the course: "exceed 1024 threads per block
 * and 48 KB of shared memory per block" rather than the postprocessor's "exceeds the target's
 * threads per block and shared memory per block" (other limits keep the postprocessor's words).
 */
function inCourseWords(reason: string, limits: TuneResult["limits"]): string {
  const exceededLimits = /^postproc verifyGpuCode: exceeds the target's (.*)$/.exec(reason)?.[1]?.split(" and ");
  if (exceededLimits === undefined) return reason;
  const inWords: Readonly<Record<string, string>> = {
    "threads per block": `${limits.threadsPerBlock} threads per block`,
    "shared memory per block": `${limits.sharedMemoryBytes / 1024} KB of shared memory per block`,
  };
  if (!exceededLimits.every((limit) => limit in inWords)) return reason;
  return `exceed ${exceededLimits.map((limit) => inWords[limit]!).join(" and ")} (postproc verifyGpuCode)`;
}

/**
 * Reasons that differ only in numbers ("uses 69632 bytes of shared memory", "uses 81920 bytes …")
 * as one line, with "…" where their numbers differ; the most frequent first.
 */
function groupNumbers(reasons: ReadonlyArray<readonly [string, number]>): Array<readonly [string, number]> {
  const groups = new Map<string, { parts: string[]; count: number }>();
  for (const [reason, n] of reasons) {
    const parts = reason.split(/(\d+)/);
    const key = parts.map((p, k) => (k % 2 === 1 ? "#" : p)).join("");
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { parts, count: n });
    else {
      group.count += n;
      group.parts = group.parts.map((p, k) => (k % 2 === 1 && p !== parts[k] ? "…" : p));
    }
  }
  return [...groups.values()].map((g) => [g.parts.join(""), g.count] as const).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function resultLines(r: TuneResult): string[] {
  const c = r.chosen;
  const again = "Run again with --seed N, or with more --trials.";
  const failures = r.checked.flatMap(checkedLine);
  if (c === undefined) return [...failures, `No candidate found: ${r.noChoiceReason ?? "the search found none"}.`, again];
  const numerics = `Numerics: ${numericsSummary(c.numerics)}.`;
  if (!r.measured) {
    return [
      ...failures,
      `No GPU: the ranking is the simulator's ESTIMATE for ${r.target}, not a measurement.`,
      `Below is the candidate with the best estimate that computes correct results (search rank ${c.rank}, estimated ${ms(c.searchMs)} ms; decisions ${formatDecisions(c.decisions)}).`,
      numerics,
      `Tune on a machine with an NVIDIA GPU to measure which candidate is really fastest.`,
    ];
  }
  const t = c.timing;
  const time = t === undefined ? "" : `: ${formatTimingWithNoise(t)} on ${t.device} with the grading settings`;
  return [...failures, `Best candidate: search rank ${c.rank} (decisions ${formatDecisions(c.decisions)})${time}.`, numerics, again];
}

/** A checked record that was not chosen, and why. */
function checkedLine(c: CheckedRecord): string[] {
  if (c.numerics !== undefined && !c.numerics.passed) return [`Search rank ${c.rank} skipped: ${numericsSummary(c.numerics)}`];
  if (c.error !== undefined) return [`Search rank ${c.rank} skipped: ${c.error}`];
  return [];
}

/** The hand-in file between markers, and what to do with it. */
export function formatHandIn(r: TuneResult, dir: string): string {
  if (r.chosen === undefined) return "";
  const name = r.traceFile;
  return [
    `----- BEGIN ${name} -----`,
    r.chosen.text.trimEnd(),
    `----- END ${name} -----`,
    `Replace the whole contents of ${dir}/${name} with the lines between BEGIN and END (or run again with --write),`,
    `then check it with \`pnpm grade --evaluate-tuned\`.`,
    "",
  ].join("\n");
}

/** After --write. */
export function formatWritten(r: TuneResult, path: string): string {
  const estimated = r.measured ? "" : " It was ranked by estimates, not measured: tune again on a GPU to find a really fast one.";
  return `Wrote the search's rank-${r.chosen?.rank ?? "?"} candidate to ${path} (its previous contents are replaced).${estimated}\nCheck it with \`pnpm grade --evaluate-tuned\`.\n`;
}

function ms(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : "–";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

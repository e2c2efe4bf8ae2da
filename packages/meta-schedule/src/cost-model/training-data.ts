/**
 * The measured samples of a cost model, grouped per workload as TVM's XGBModel keeps them: the
 * cost of a run is the median of its run times (1e10 s when it failed), and a sample's label is
 * its group's best cost over its own cost — normalised throughput in (0, 1], 0 for a failed run.
 */
import { FAILED_RUN_SECS, type RunnerResult } from "../interfaces/runner.js";

export function runCost(result: RunnerResult): number {
  if (!result.ok || result.runSecs.length === 0) return FAILED_RUN_SECS;
  const sorted = [...result.runSecs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Number.isFinite(median) && median > 0 ? median : FAILED_RUN_SECS;
}

function isNumberArray(x: unknown): x is number[] {
  return Array.isArray(x) && x.every((v) => typeof v === "number");
}

interface Group {
  readonly vectors: Float64Array[];
  readonly costs: number[];
}

/** The samples as JSON-friendly data: per workload (in the order they came), feature vectors and costs in seconds. */
export interface TrainingDataJSON {
  readonly groups: readonly { readonly workload: string; readonly vectors: readonly (readonly number[])[]; readonly costs: readonly number[] }[];
}

export class TrainingData {
  private readonly groups = new Map<string, Group>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(workloadHash: string, vectors: readonly Float64Array[], results: readonly RunnerResult[]): void {
    let group = this.groups.get(workloadHash);
    if (group === undefined) this.groups.set(workloadHash, (group = { vectors: [], costs: [] }));
    vectors.forEach((v, k) => {
      group.vectors.push(v);
      group.costs.push(runCost(results[k]!));
    });
    this.count += vectors.length;
  }

  toJSON(): TrainingDataJSON {
    return { groups: [...this.groups].map(([workload, g]) => ({ workload, vectors: g.vectors.map((v) => [...v]), costs: [...g.costs] })) };
  }

  /** Samples saved by `toJSON`; throws a RangeError naming the first malformed group. */
  static fromJSON(json: TrainingDataJSON, vectorLength: number): TrainingData {
    const data = new TrainingData();
    if (!Array.isArray((json as Partial<TrainingDataJSON> | null | undefined)?.groups))
      throw new RangeError("cost-model state: `groups` must be an array of per-workload samples");
    for (const item of json.groups as readonly unknown[]) {
      // Parsed JSON: a group may be anything (null included).
      const g = (typeof item === "object" && item !== null ? item : {}) as Partial<TrainingDataJSON["groups"][number]>;
      const hash = String(g.workload);
      const vectors: unknown = g.vectors;
      const costs: unknown = g.costs;
      const ok =
        typeof g.workload === "string" &&
        !data.groups.has(g.workload) &&
        Array.isArray(vectors) &&
        isNumberArray(costs) &&
        vectors.length === costs.length &&
        vectors.every((v) => isNumberArray(v) && v.length === vectorLength) &&
        costs.every((c) => c > 0);
      if (!ok)
        throw new RangeError(
          `cost-model state: the samples of workload ${hash} are malformed (expected a workload seen once, equal numbers of ${vectorLength}-number vectors and positive costs)`,
        );
      data.groups.set(hash, { vectors: (vectors as number[][]).map((v) => Float64Array.from(v)), costs: [...costs] });
      data.count += costs.length;
    }
    return data;
  }

  /** Every sample with its label. */
  samples(): { vectors: Float64Array[]; labels: number[] } {
    const vectors: Float64Array[] = [];
    const labels: number[] = [];
    for (const g of this.groups.values()) {
      const valid = g.costs.filter((c) => c < FAILED_RUN_SECS);
      const best = valid.length === 0 ? undefined : Math.min(...valid);
      g.costs.forEach((c, k) => {
        vectors.push(g.vectors[k]!);
        labels.push(best === undefined || c >= FAILED_RUN_SECS ? 0 : best / c);
      });
    }
    return { vectors, labels };
  }
}

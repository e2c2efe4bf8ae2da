/**
 * A runner without a GPU (CI, `--dry-run`): deterministic ESTIMATES from the analytic latency model,
 * optionally with seeded noise, and optional numerics checks on the GPU simulator.
 */
import { type CudaTarget, cudaTarget } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { type LatencyEstimate, estimateLatency } from "../latency-model/latency-model.js";
import { seededNormal } from "./seeded-normal.js";
import { DEFAULT_EVALUATOR_CONFIG, type Runner, type RunnerInput, type RunnerResult } from "../interfaces/runner.js";

export interface SimulatedRunnerOptions {
  /** The GPU to estimate for (default: the target each candidate was lowered for). */
  readonly target?: CudaTarget | string;
  /** Run times per candidate (TVM's repeat; default 1). */
  readonly repeat?: number;
  /** Multiplicative log-normal noise of standard deviation `relative` (e.g. 0.02), drawn from `seed`. */
  readonly noise?: { readonly relative: number; readonly seed?: number };
  /**
   * Simulate candidates whose arguments have at most `maxElements` elements in all (default 2^16)
   * and compare with the CPU executor running `reference` (the workload's unscheduled function;
   * default the candidate's own scheduled function, which checks lowering but not scheduling).
   */
  readonly checkNumerics?: boolean | { readonly maxElements?: number; readonly seed?: number; readonly reference?: PrimFunc };
}

export class SimulatedRunner implements Runner {
  readonly name = "SimulatedRunner";
  readonly #opts: SimulatedRunnerOptions;
  readonly #target: CudaTarget | undefined;
  readonly #repeat: number;

  constructor(opts: SimulatedRunnerOptions = {}) {
    this.#opts = opts;
    this.#target = typeof opts.target === "string" ? cudaTarget(opts.target, undefined, "SimulatedRunner") : opts.target;
    this.#repeat = opts.repeat ?? DEFAULT_EVALUATOR_CONFIG.repeat;
    if (!Number.isInteger(this.#repeat) || this.#repeat < 1) throw new RangeError(`SimulatedRunner: repeat must be a positive integer, got ${this.#repeat}`);
    const relative = opts.noise?.relative;
    if (relative !== undefined && !(relative >= 0)) throw new RangeError(`SimulatedRunner: noise.relative must be non-negative, got ${relative}`);
  }

  /** The model's estimate for one built candidate (for reports: the bound and occupancy of each kernel). */
  estimate(input: RunnerInput): LatencyEstimate {
    const lowered = input.artifact.lowered;
    if (lowered === undefined)
      throw new RangeError(`SimulatedRunner: ${input.artifact.name} has no lowered module (build with LocalBuilder's keepLowered, the default)`);
    return estimateLatency(lowered, this.#target ?? lowered.target);
  }

  async run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]> {
    return inputs.map((input) => this.#runOne(input));
  }

  #runOne(input: RunnerInput): RunnerResult {
    const lowered = input.artifact?.lowered;
    if (lowered === undefined)
      return {
        ok: false,
        error: `SimulatedRunner: ${input.artifact?.name ?? "the candidate"} has no lowered module (build with LocalBuilder's keepLowered, the default)`,
      };
    const wrong = this.#checkNumerics(input);
    if (wrong !== undefined) return { ok: false, error: wrong };
    let seconds: number;
    try {
      seconds = estimateLatency(lowered, this.#target ?? lowered.target).seconds;
    } catch (err) {
      return { ok: false, error: `SimulatedRunner: the latency model failed on ${lowered.name}: ${err instanceof Error ? err.message : String(err)}` };
    }
    const noise = this.#opts.noise;
    const runSecs = Array.from({ length: this.#repeat }, (_, r) =>
      noise === undefined || noise.relative === 0
        ? seconds
        : seconds * Math.exp(noise.relative * seededNormal(`${noise.seed ?? 0}/${r}/${input.artifact.source}`)),
    );
    return { ok: true, runSecs };
  }

  #checkNumerics(input: RunnerInput): string | undefined {
    const check = this.#opts.checkNumerics;
    const lowered = input.artifact.lowered;
    if (check === undefined || check === false || lowered === undefined) return undefined;
    const opts = check === true ? {} : check;
    const elements = input.argsInfo.reduce((n, a) => n + a.shape.reduce((x, y) => x * y, 1), 0);
    if (elements > (opts.maxElements ?? 1 << 16)) return undefined;
    try {
      const report = compareWithReference(lowered, opts.reference ?? lowered.source, { seed: opts.seed ?? 0, rtol: 1e-4, atol: 1e-4 });
      return report.passed ? undefined : `wrong result in the simulator: ${formatComparison(report)}`;
    } catch (err) {
      return `the simulator failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
    }
  }
}

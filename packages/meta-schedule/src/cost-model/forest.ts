/// <reference path="./ml-cart.d.ts" />
/**
 * A random forest regressor: bagged CART trees from ml-cart 2.1.1 (mljs; pure JavaScript, no
 * native build). Each tree sees a bootstrap sample of at most `maxSamplesPerTree` rows and a
 * random subset of the informative columns. Why not ml-random-forest (same authors, on top of
 * ml-cart): its `maxSamples` takes the *first* rows for every tree, and a CART node costs
 * O(rows² · columns) in ml-cart, so bounding the rows per tree ourselves is what keeps training
 * on ~500 candidates well under a second.
 */
import { DecisionTreeRegression } from "ml-cart";
import { RandomEngine } from "@tessera/schedule";

export interface ForestOptions {
  readonly numTrees: number;
  readonly maxDepth: number;
  /** Nodes with at most this many samples become leaves. */
  readonly minSamplesPerLeaf: number;
  /** Fraction of the informative columns each tree may split on. */
  readonly columnFraction: number;
  readonly maxSamplesPerTree: number;
  readonly seed: number;
}

export const DEFAULT_FOREST_OPTIONS: ForestOptions = {
  numTrees: 24,
  maxDepth: 10,
  minSamplesPerLeaf: 2,
  columnFraction: 0.3,
  maxSamplesPerTree: 128,
  seed: 43,
};

interface Tree {
  readonly columns: readonly number[];
  readonly model: DecisionTreeRegression;
}

export class Forest {
  private constructor(
    private readonly trees: readonly Tree[],
    /** The prediction when no tree could be grown (constant labels or no informative column). */
    private readonly constant: number,
  ) {}

  static train(vectors: readonly Float64Array[], labels: readonly number[], opts: ForestOptions): Forest {
    const n = vectors.length;
    const mean = n === 0 ? 0 : labels.reduce((a, b) => a + b, 0) / n;
    if (n < 2 || labels.every((y) => y === labels[0])) return new Forest([], mean);
    const informative = informativeColumns(vectors);
    if (informative.length === 0) return new Forest([], mean);
    const rng = new RandomEngine(opts.seed);
    const rows = Math.min(n, opts.maxSamplesPerTree);
    const perTree = Math.max(1, Math.round(informative.length * opts.columnFraction));
    const trees: Tree[] = [];
    for (let t = 0; t < opts.numTrees; t++) {
      const columns = sampleWithoutReplacement(informative, perTree, rng).sort((a, b) => a - b);
      const X: number[][] = [];
      const y: number[] = [];
      for (let r = 0; r < rows; r++) {
        const k = rng.int(0, n);
        X.push(columns.map((c) => vectors[k]![c]!));
        y.push(labels[k]!);
      }
      const model = new DecisionTreeRegression({ maxDepth: opts.maxDepth, minNumSamples: opts.minSamplesPerLeaf });
      model.train(X, y);
      trees.push({ columns, model });
    }
    return new Forest(trees, mean);
  }

  predict(vectors: readonly Float64Array[]): number[] {
    if (this.trees.length === 0) return vectors.map(() => this.constant);
    const sums = new Array<number>(vectors.length).fill(0);
    for (const tree of this.trees) {
      const X = vectors.map((v) => tree.columns.map((c) => v[c] ?? 0));
      tree.model.predict(X).forEach((p, k) => {
        sums[k]! += Number.isFinite(p) ? p : this.constant;
      });
    }
    return sums.map((s) => s / this.trees.length);
  }
}

/**
 * The columns that vary over the training set, each distinct column once: a constant column
 * cannot split anything, and a column equal to another (a kernel-wide feature's mean and max)
 * only slows the trees down.
 */
function informativeColumns(vectors: readonly Float64Array[]): number[] {
  const width = vectors[0]!.length;
  const seen = new Set<string>();
  const out: number[] = [];
  const values = new Array<number>(vectors.length);
  for (let c = 0; c < width; c++) {
    const first = vectors[0]![c];
    let varies = false;
    vectors.forEach((v, k) => {
      values[k] = v[c]!;
      if (v[c] !== first) varies = true;
    });
    if (!varies) continue;
    const key = values.join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

function sampleWithoutReplacement<T>(items: readonly T[], k: number, rng: RandomEngine): T[] {
  const pool = [...items];
  for (let i = 0; i < k && i < pool.length; i++) {
    const j = rng.int(i, pool.length);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}

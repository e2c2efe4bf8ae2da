/** The part of ml-cart 2.1.1 (mljs CART trees; the package ships no types) that the forest uses. */
declare module "ml-cart" {
  export interface DecisionTreeRegressionOptions {
    /** Nodes with at most this many samples become leaves (default 3). */
    minNumSamples?: number;
    maxDepth?: number;
  }
  export class DecisionTreeRegression {
    constructor(options?: DecisionTreeRegressionOptions);
    train(trainingSet: number[][], trainingValues: number[]): void;
    predict(toPredict: number[][]): number[];
  }
}

export * from "../interfaces/cost-model.js";
export * from "./random-model.js";
export * from "./forest-model.js";
export * from "./forest.js";
export * from "./candidate-vector.js";
export * from "./training-data.js";
export * from "./analytic-model.js";
export * from "./hybrid-model.js";

/**
 * Entry of the builder's worker threads (bundled as ms-build-worker.mjs): lowers and generates
 * CUDA for one candidate per task. The scheduled PrimFunc arrives by structured clone, which
 * keeps the IR's shared nodes and variable identities (IR nodes are plain immutable objects).
 */
import { serveTasks } from "../isolation/serve.js";
import { type GenerateTask, type GeneratedArtifact, lowerAndGenerate } from "./lower-and-generate.js";

serveTasks<GenerateTask, GeneratedArtifact>((task) => lowerAndGenerate(task));

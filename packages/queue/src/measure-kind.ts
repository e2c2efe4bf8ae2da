/**
 * The "measure" job kind (meta-schedule's measure jobs on the queue) and a QueueRunner's dispatch through a Dispatcher. Here,
 * not in an app, so that every client (`tessera tune --redis`, the workers) shares one definition.
 */
import {
  type MeasureDispatch,
  type MeasureJobPayload,
  type MeasureJobResult,
  MeasureJobPayloadSchema,
  MeasureJobResultSchema,
  MeasureJobRunners,
} from "@tessera/meta-schedule/measure-queue";
import type { Dispatcher } from "./dispatcher.js";
import { type JobHandler, type JobKind, defineJobKind, handlerFor } from "./job-kind.js";

export const MEASURE_JOB: JobKind<MeasureJobPayload, MeasureJobResult> = defineJobKind("measure", MeasureJobPayloadSchema, MeasureJobResultSchema);

export function measureDispatch(dispatcher: Dispatcher): MeasureDispatch {
  return (payload, key) => dispatcher.dispatch(MEASURE_JOB, payload, { key });
}

export interface MeasureHandler {
  readonly handler: JobHandler<unknown, unknown>;
  dispose(): Promise<void>;
}

/** `turns`: the lock of the worker's GPU, shared with the other workers on it. */
export function createMeasureHandler(turns?: <T>(work: () => Promise<T>) => Promise<T>): MeasureHandler {
  const runners = new MeasureJobRunners(turns);
  return { handler: handlerFor(MEASURE_JOB, (payload) => runners.run(payload)), dispose: () => runners.dispose() };
}

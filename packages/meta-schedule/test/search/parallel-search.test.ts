import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { RandomEngine } from "@tessera/schedule";
import { afterAll, describe, expect, it } from "vitest";
import { defaultCudaSpace, defaultCudaSpaceGenerator } from "../../src/space/defaults.js";
import { postprocSetOf, runReplayJob, type ReplayJob } from "../../src/search/replay-job.js";
import { REPLAYS_BEFORE_PROJECTING, ReplayPool, type ReplayPoolOptions, checkSearchWorkers } from "../../src/search/replay-pool.js";
import { rewriteUnboundBlock } from "../../src/postproc/rewrite-unbound-block.js";
import { tuneContext } from "../../src/tune-context.js";
import { CandidateReplayer } from "../../src/search/candidate-replayer.js";
import { RejectionTally } from "../../src/search/rejection-tally.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { latencyEstimateOf } from "../../src/feature/latency-estimate-of.js";
import { launchClassOf } from "../../src/search/launch-classes.js";
import { LazyCandidate, scoredCandidateOf } from "../../src/search/lazy-candidate.js";
import { structuralHash } from "@tessera/ir";
import { workloadOf } from "../../src/workload.js";
import { WARM_UP_REPLAYS, warmUpJob } from "../../src/search/warm-up.js";
import { H100, ONE_CLIMB, func, handedOutTraces } from "./search-fixtures.js";

/** The traces a search hands out (one climb a round), its replays in the search's thread (no pool) or in `pool`'s workers. */
const handedOut = (seed: number, pool: ReplayPool | undefined): Promise<string[]> =>
  handedOutTraces(seed, (strategy) => strategy.useReplayPool(pool), ONE_CLIMB);

/** The pools the file's tests made, disposed after them. */
const pools: ReplayPool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.dispose();
});
// Under vitest the pools' default entry is the prebuilt worker bundle (scripts/test-workers/global-setup.mjs).
const pool = (opts: ReplayPoolOptions): ReplayPool => {
  const made = new ReplayPool(opts);
  pools.push(made);
  return made;
};

/**
 * A pool of 1 worker whose threshold is never reached: every replay stays in the search's thread,
 * so a search through it is a search with 0 workers (the second test checks that it started none).
 */
let neverEngaged: ReplayPool | undefined;
const neverEngagedPool = (): ReplayPool => (neverEngaged ??= pool({ workers: 1, startWorkersAfterCpuMs: Number.POSITIVE_INFINITY }));

/**
 * The traces a search hands out with 0 workers, once per seed (each search costs seconds of CPU):
 * seed 3's through the never-engaged pool, the others' without a pool; the pools' searches are
 * compared with both kinds.
 */
const inThreadBySeed = new Map<number, Promise<string[]>>();
const handedOutInThread = (seed: number): Promise<string[]> => {
  if (!inThreadBySeed.has(seed)) inThreadBySeed.set(seed, handedOut(seed, seed === 3 ? neverEngagedPool() : undefined));
  return inThreadBySeed.get(seed)!;
};

/**
 * One pool of 3 workers engaged from the first batch (by default they start only after seconds of
 * replay in the search's thread), made by whichever test asks first: the tests that only need
 * replays in workers share it rather than each starting workers cold (seconds of CPU each).
 */
let threeWorkers: ReplayPool | undefined;
const engagedThreeWorkers = (): ReplayPool => (threeWorkers ??= pool({ workers: 3, startWorkersAfterCpuMs: 0 }));

/** A pool of 2 workers alone (callerShare: false, as while batches are measured) and what its warm-up showed. */
interface WarmedPool {
  readonly pool: ReplayPool;
  /** Whether the pool was engaged before the warm-up call, and right after it (before its replies). */
  readonly engagedBefore: boolean;
  readonly engagedOnCall: boolean;
}
/**
 * Never engaged by the search's own replays: only the warm-up engages it. Made and warmed by
 * whichever test asks first, and shared: every replay of a warmed pool goes to its workers, and
 * each worker started cold costs seconds of CPU.
 */
let warmedTwo: Promise<WarmedPool> | undefined;
const warmedTwoWorkersAlone = (): Promise<WarmedPool> =>
  (warmedTwo ??= (async () => {
    const made = pool({ workers: 2, callerShare: false, startWorkersAfterCpuMs: Number.POSITIVE_INFINITY });
    const engagedBefore = made.engaged;
    const warming = made.warmUp(warmUpJob(func, H100, defaultCudaSpaceGenerator(H100))!);
    const engagedOnCall = made.engaged;
    await warming;
    return { pool: made, engagedBefore, engagedOnCall };
  })());

describe("the evolutionary search with worker threads", () => {
  // Seed 17 is compared through the warmed pool of 2 workers below: every search a pool runs here
  // costs seconds of CPU, and each test's claim needs one seed.
  it("hands out the same candidates in the same order with 0 and 3 search workers", { timeout: 600_000 }, async () => {
    const three = engagedThreeWorkers();
    const inThread = await handedOutInThread(3);
    expect(inThread).toHaveLength(8);
    expect(await handedOut(3, three)).toEqual(inThread);
    expect(three.workersStarted).toBeGreaterThan(1);
    expect(three.fallbacks).toBe(0);
  });

  it("starts no worker until the search has replayed for startWorkersAfterCpuMs in its own thread, then hands the rest to them (1 worker): the same candidates", {
    timeout: 600_000,
  }, async () => {
    // Never reached: every replay of the search stays in its thread (the 0-worker search of seed 3).
    const never = neverEngagedPool();
    const inThread = await handedOutInThread(3);
    // Reached by the first replay (each takes milliseconds): the run switches to its one worker
    // part-way, in the middle of its first batch, and every later replay goes to that worker.
    const soon = pool({ workers: 1, startWorkersAfterCpuMs: 1 });
    expect(never.workersStarted).toBe(0);
    expect(never.engaged).toBe(false);
    expect(soon.engaged).toBe(false);
    expect(await handedOut(3, soon)).toEqual(inThread);
    expect(soon.engaged).toBe(true);
    expect(soon.workersStarted).toBe(1);
    expect(never.fallbacks + soon.fallbacks).toBe(0);
  });

  it("a pool warmed ahead (warmUp) has every worker started and is engaged before the search; its 2 workers alone (the search's thread taking no share) hand out the same candidates", {
    timeout: 600_000,
  }, async () => {
    expect(warmUpJob(func, H100, defaultCudaSpaceGenerator(H100))?.requests).toHaveLength(WARM_UP_REPLAYS);
    const { pool: warmed, engagedBefore, engagedOnCall } = await warmedTwoWorkersAlone();
    expect(engagedBefore).toBe(false);
    expect(engagedOnCall).toBe(true);
    expect(warmed.workersStarted).toBe(2);
    expect(await handedOut(17, warmed)).toEqual(await handedOutInThread(17));
    expect(warmed.workersStarted).toBe(2);
    expect(warmed.fallbacks).toBe(0);
  });
});

/** Four fresh samples of the default CUDA space of the workload. */
function smallJob(): ReplayJob {
  const workload = workloadOf(func);
  const ctx = tuneContext(workload, H100, { seed: 5 });
  const space = defaultCudaSpaceGenerator(H100);
  space.initialize?.(ctx);
  const design = space.generateDesignSpace(ctx)[0]!.trace.simplified({ removePostproc: true }).toJSON();
  return {
    workload,
    target: H100,
    postprocs: postprocSetOf(H100, space.postprocs)!,
    requests: [11, 12].map((seed) => ({ trace: design, freshDecisions: true, seed })),
  };
}

function fixture(name: string) {
  return { url: pathToFileURL(join(import.meta.dirname, "fixtures", name)), typeScript: true };
}

describe("ReplayPool", () => {
  it("replays a trace sent as its JSON text (as the search sends them) as it replays the parsed document", { timeout: 300_000 }, () => {
    const job = smallJob();
    const asText: ReplayJob = { ...job, requests: job.requests.map((r) => ({ ...r, trace: JSON.stringify(r.trace) })) };
    expect(typeof asText.requests[0]!.trace).toBe("string");
    const reply = (r: ReturnType<typeof runReplayJob>[number]) => (r.ok ? [r.hash, r.traceKey, r.traceText, r.launchClass, r.estimate] : r.reason);
    expect(runReplayJob(asText).map(reply)).toEqual(runReplayJob(job).map(reply));
    expect(runReplayJob(job).some((r) => r.ok)).toBe(true);
  });

  it("without a caller's share, hands a batch to the workers in shrinking chunks and answers in request order", { timeout: 300_000 }, async () => {
    const job = smallJob();
    // Six fresh samples: on two workers, chunks of 2, 1, 1, 1, 1 (replay-chunks.ts), taken as workers come free.
    const batch: ReplayJob = { ...job, requests: Array.from({ length: 6 }, (_, k) => ({ ...job.requests[0]!, seed: 30 + k })) };
    const reply = (r: ReturnType<typeof runReplayJob>[number]) => (r.ok ? [r.hash, r.traceKey] : r.reason);
    // The shared warmed pool of 2 workers alone: engaged, so the whole batch goes to its workers.
    const { pool } = await warmedTwoWorkersAlone();
    const fallbacksBefore = pool.fallbacks;
    const replies = await pool.replay(batch);
    expect(replies.map(reply)).toEqual(runReplayJob(batch).map(reply));
    expect(new Set(replies.map((r) => (r.ok ? r.traceKey : r.reason))).size).toBeGreaterThan(1);
    expect(pool.fallbacks).toBe(fallbacksBefore);
    expect(pool.workersStarted).toBe(2);
  });

  it("replays a crashed worker's traces in the search's thread with a warning: the same replies, never a missing one", { timeout: 300_000 }, async () => {
    const job = smallJob();
    const expected = runReplayJob(job);
    for (const worker of ["crashing-replay-worker.ts", "short-replay-worker.ts"]) {
      const warnings: string[] = [];
      const pool = new ReplayPool({ workers: 1, workerEntry: fixture(worker), log: (_level, m) => warnings.push(m) });
      try {
        const replies = await pool.replay(job);
        expect(replies.map((r) => (r.ok ? r.hash : r.reason))).toEqual(expected.map((r) => (r.ok ? r.hash : r.reason)));
        expect(pool.fallbacks).toBeGreaterThan(0);
        expect(warnings[0]).toMatch(/^search worker failed on \d+ trace\(s\) \((crash|it answered)/);
      } finally {
        await pool.dispose();
      }
    }
  });

  it("hands over each candidate's estimate, launch shape and trace digest, so that the search's thread lowers and digests nothing again", {
    timeout: 300_000,
  }, async () => {
    const ctx = tuneContext(workloadOf(func), H100, { seed: 9 });
    const space = defaultCudaSpaceGenerator(H100);
    space.initialize?.(ctx);
    const design = space.generateDesignSpace(ctx)[0]!.trace.simplified({ removePostproc: true });
    // The shared pool of 3 workers, engaged: every plan goes to the workers, none replays in this thread first.
    const pool = engagedThreeWorkers();
    const replay = async (replayer: CandidateReplayer) => {
      const plans = [1, 2, 3].map((seed) => ({ trace: design, freshDecisions: true, seed }));
      return (await replayer.replayAll(plans, new RejectionTally())).filter((c) => c !== undefined);
    };
    const viaWorkers = await replay(new CandidateReplayer(ctx, space.postprocs, new RandomEngine(1), pool));
    const inThread = await replay(new CandidateReplayer(ctx, space.postprocs, new RandomEngine(1)));
    expect(viaWorkers.length).toBeGreaterThan(0);
    // A worker's reply holds its function as bytes, read back only when the schedule is built.
    expect(viaWorkers.every((c) => c instanceof LazyCandidate && !c.built)).toBe(true);
    expect(viaWorkers.map((c) => c.hash)).toEqual(inThread.map((c) => c.hash));
    expect(viaWorkers.map((c) => c.traceKey)).toEqual(inThread.map((c) => c.traceKey));
    expect(viaWorkers.map((c) => c.launchClass)).toEqual(inThread.map((c) => launchClassOf(c.sch)));
    viaWorkers.forEach((c, k) => {
      expect(c.estimate).toBeDefined();
      // The cost model reads the worker's estimate: the search's thread has no module and lowers none.
      expect(latencyEstimateOf(scoredCandidateOf(c, []), ctx)?.seconds).toBe(latencyEstimateOf({ sch: inThread[k]!.sch, argsInfo: [] }, ctx)?.seconds);
      expect(loweredModuleFor(c.sch.func)).toBeUndefined();
      expect(c.sch.trace.toJSON()).toEqual(inThread[k]!.sch.trace.toJSON());
      expect((c as LazyCandidate).built).toBe(true);
      expect(structuralHash(c.sch.func)).toBe(inThread[k]!.hash);
    });
  });

  it("engages ahead when the pending replays of a batch would pass startWorkersAfterCpuMs by themselves, at the mean CPU of the replays so far", () => {
    const pool = new ReplayPool({ workers: 1, startWorkersAfterCpuMs: 1_000 });
    // Too few replays to project from: a large batch waits.
    for (let k = 1; k < REPLAYS_BEFORE_PROJECTING; k++) pool.noteReplayedInThread(10);
    expect(pool.engageFor(1_000)).toBe(false);
    pool.noteReplayedInThread(10);
    const spent = 10 * REPLAYS_BEFORE_PROJECTING;
    // spent + pending × 10 ms against 1,000 ms: just short, then just enough.
    const short = Math.floor((1_000 - spent) / 10) - 1;
    expect(pool.engageFor(short)).toBe(false);
    expect(pool.engaged).toBe(false);
    expect(pool.engageFor(short + 1)).toBe(true);
    expect(pool.engaged).toBe(true);
    // Engaged for good: any batch goes to the workers, and replays here no longer count.
    expect(pool.engageFor(1)).toBe(true);
    expect(pool.workersStarted).toBe(0);
  });

  it("warms on fresh samples of the task's design space with seeds of its own, replayed as a worker replays them; none for a space workers cannot rebuild", {
    timeout: 300_000,
  }, () => {
    const job = warmUpJob(func, H100, defaultCudaSpaceGenerator(H100))!;
    const replies = runReplayJob(job);
    expect(replies.filter((r) => r.ok).length).toBeGreaterThan(0);
    // The same job every time: it draws on no random engine of the search.
    expect(warmUpJob(func, H100, defaultCudaSpaceGenerator(H100))).toEqual(job);
    const cuda = defaultCudaSpaceGenerator(H100);
    const own = {
      name: "own postprocessors",
      generateDesignSpace: (c: Parameters<typeof cuda.generateDesignSpace>[0]) => cuda.generateDesignSpace(c),
      postprocs: [rewriteUnboundBlock({ maxThreadblocks: 256 })],
      mutators: cuda.mutators,
    };
    expect(warmUpJob(func, H100, own)).toBeUndefined();
  });

  it("sends only the default postprocessor lists to workers, and checks its worker count", () => {
    expect(postprocSetOf(H100, defaultCudaSpace(H100).postprocs)).toBe("cuda-default");
    expect(postprocSetOf(H100, [rewriteUnboundBlock({ maxThreadblocks: 256 })])).toBeUndefined();
    expect(() => checkSearchWorkers(-1, "tuneTIR")).toThrow(/tuneTIR: searchWorkers must be a non-negative integer/);
    expect(() => new ReplayPool({ workers: 0 })).toThrow(/workers must be a positive integer/);
    expect(() => new ReplayPool({ workers: 1, startWorkersAfterCpuMs: -1 })).toThrow(/startWorkersAfterCpuMs must be a non-negative number, got -1/);
    expect(new ReplayPool({ workers: 1 }).engaged).toBe(false);
  });
});

/**
 * The command lines of the job queue, without a Redis: `tessera-grade worker` and
 * `batch --redis` name a malformed URL, contradicting options and an unreachable server.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { parseWorkerArgs } from "../src/cli/worker-command.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-queue-cli-"));
  await mkdir(join(scratch, "subs", "alice"), { recursive: true });
});
afterAll(async () => rm(scratch, { recursive: true, force: true }));

async function grade(args: string[]): Promise<{ code: number; err: string }> {
  const io = memoryIO();
  const code = await runGradeCli(args, io);
  return { code, err: io.err.join("") };
}

describe("tessera-grade worker", () => {
  it("needs a redis:// URL and says what is wrong with another", async () => {
    expect(await grade(["worker"])).toEqual({ code: 2, err: expect.stringContaining("worker needs --redis URL") });
    expect(await grade(["worker", "--redis", "127.0.0.1:6379"])).toEqual({
      code: 2,
      err: expect.stringContaining('"127.0.0.1:6379" is not a URL; expected redis://HOST:PORT[/DB]'),
    });
    expect(await grade(["worker", "--redis", "http://127.0.0.1:6379"])).toEqual({
      code: 2,
      err: expect.stringContaining('has scheme "http"; expected redis:// or rediss://'),
    });
    expect(await grade(["worker", "--redis", "redis://h:1", "--gpu", "0", "--no-gpu"])).toEqual({
      code: 2,
      err: expect.stringContaining("--gpu and --no-gpu contradict"),
    });
    expect(await grade(["worker", "--redis", "redis://h:1", "--concurrency", "0"])).toMatchObject({ code: 2 });
  });

  it("parses --gpu, --concurrency and --name", () => {
    expect(parseWorkerArgs(["--redis", "redis://10.0.0.5:6380/2", "--gpu", "3", "--concurrency", "2", "--name", "lab-3"])).toEqual({
      redis: "redis://10.0.0.5:6380/2",
      gpu: 3,
      noGpu: false,
      concurrency: 2,
      name: "lab-3",
      passwordFile: undefined,
      insecure: false,
    });
  });

  it("parses --redis-password-file and --insecure", () => {
    expect(parseWorkerArgs(["--redis", "rediss://10.0.0.5", "--redis-password-file", "/run/secrets/redis", "--insecure"])).toMatchObject({
      redis: "rediss://10.0.0.5",
      passwordFile: "/run/secrets/redis",
      insecure: true,
    });
  });

  it("exits 1 naming the address when Redis does not answer", async () => {
    expect(await grade(["worker", "--redis", "redis://127.0.0.1:1", "--no-gpu"])).toEqual({
      code: 1,
      err: expect.stringMatching(/^tessera-grade worker: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*ECONNREFUSED/),
    });
  });
});

describe("tessera-grade batch --redis", () => {
  it("refuses a malformed URL, --jobs and --merge with it", async () => {
    const base = ["batch", join(scratch, "subs"), "--out", join(scratch, "out")];
    expect(await grade([...base, "--redis", "localhost"])).toEqual({ code: 2, err: expect.stringContaining('--redis: "localhost" is not a URL') });
    expect(await grade([...base, "--redis", "redis://h:1", "--jobs", "2"])).toEqual({
      code: 2,
      err: expect.stringContaining("--jobs is for grading on this machine"),
    });
    expect(await grade([...base, "--redis", "redis://h:1", "--merge"])).toMatchObject({ code: 2 });
  });

  it("fails the batch (exit 1) naming the address when Redis does not answer, grading nothing", async () => {
    const out = join(scratch, "out-unreachable");
    const result = await grade(["batch", join(scratch, "subs"), "--out", out, "--redis", "redis://127.0.0.1:1", "--no-gpu"]);
    expect(result).toEqual({ code: 1, err: expect.stringMatching(/the batch failed: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*ECONNREFUSED/) });
  });
});

/** Limits carried by a measure job are capped (issue 33: a job asking for 10^12 ms overflowed the timer). */
import { describe, expect, it } from "vitest";

describe("limits a measure job carries", () => {
  it("are capped: a timeout beyond a day (whose timer would overflow) makes the payload malformed", async () => {
    const { RemoteRunnerSpecSchema } = await import("../../src/measure-queue/index.js");
    expect(RemoteRunnerSpecSchema.safeParse({ kind: "local", timeoutSec: 30 }).success).toBe(true);
    expect(RemoteRunnerSpecSchema.safeParse({ kind: "local", timeoutSec: 1e9 }).success).toBe(false);
    expect(RemoteRunnerSpecSchema.safeParse({ kind: "local", timeoutSec: 24 * 3600 + 1 }).success).toBe(false);
  });
});

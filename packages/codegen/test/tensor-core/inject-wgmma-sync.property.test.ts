/**
 * injectWgmmaSync on random kernels: sequences and loops of wgmma runs (each wgmma committed),
 * barriers, accesses of the accumulator and other statements. Executing the result (loops twice)
 * as a trace of events obeys the PTX rules for asynchronous wgmma: a `wgmma.fence` since the last
 * other instruction before each wgmma, no wgmma in flight at a barrier or at an access of the
 * accumulator; and removing what the pass inserted gives back the input.
 */
import {
  type Call,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  allocate,
  primFunc,
  bufferLoad,
  bufferStore,
  call,
  declBuffer,
  evaluate,
  floatImm,
  forLoop,
  intImm,
  seq,
  stringImm,
  variable,
} from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WGMMA_COMMIT_GROUP, WGMMA_FENCE, WGMMA_MMA_ASYNC, WGMMA_WAIT_GROUP } from "../../src/index.js";
import { injectWgmmaSync } from "../../src/lower/passes/inject-wgmma-sync.js";

const acc = declBuffer("C_warp", [64], "float32", { scope: "local" });
const other = declBuffer("X_local", [8], "float32", { scope: "local" });
const smem = declBuffer("S_shared", [1024], "float16", { scope: "shared" });

const ptr = (offset: number): PrimExpr =>
  call("handle", "tvm_access_ptr", [call("float16", "type_annotation", []), smem.data, intImm(offset), intImm(256), intImm(1)]);
const wgmma = (): Stmt =>
  seq([
    evaluate(
      call("void", WGMMA_MMA_ASYNC, [
        stringImm("m64n128k16"),
        stringImm("fp16"),
        stringImm("fp16"),
        stringImm("fp32"),
        intImm(0),
        intImm(1),
        intImm(128),
        ptr(0),
        intImm(16),
        intImm(1024),
        ptr(512),
        intImm(1024),
        intImm(2048),
        acc.data,
        intImm(0),
      ]),
    ),
    evaluate(call("void", WGMMA_COMMIT_GROUP, [])),
  ]);
const barrier = (): Stmt => evaluate(call("int32", "tvm_storage_sync", [stringImm("shared")]));
const touchAcc = (): Stmt => bufferStore(acc, floatImm(0, "float32"), [intImm(3)]);
const elsewhere = (): Stmt => bufferStore(other, bufferLoad(other, [intImm(1)]), [intImm(0)]);

let loops = 0;
const loop = (body: Stmt): Stmt => forLoop(variable(`i${loops++}`), 2, body);

const stmt: fc.Arbitrary<Stmt> = fc
  .letrec<{ s: Stmt; list: Stmt[] }>((tie) => ({
    s: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(null).map(wgmma),
      fc.constant(null).map(() => loop(wgmma())),
      fc.constant(null).map(barrier),
      fc.constant(null).map(touchAcc),
      fc.constant(null).map(elsewhere),
      tie("list").map((body) => loop(seq(body))),
    ),
    list: fc.array(tie("s"), { minLength: 1, maxLength: 5 }),
  }))
  .list.map((list) => seq(list));

type Event = "wgmma" | "fence" | "wait" | "barrier" | "acc" | "other" | "commit";

/** The events of executing `s`, every loop twice. */
function trace(s: Stmt, out: Event[] = []): Event[] {
  switch (s.kind) {
    case "SeqStmt":
      for (const x of s.seq) trace(x, out);
      return out;
    case "For":
      trace(s.body, out);
      trace(s.body, out);
      return out;
    case "Allocate":
      return trace(s.body, out);
    case "BufferStore":
      out.push(s.buffer.data === acc.data ? "acc" : "other");
      return out;
    case "Evaluate": {
      const op = s.value.kind === "Call" ? s.value.op : "";
      const event: Event =
        op === WGMMA_MMA_ASYNC
          ? "wgmma"
          : op === WGMMA_FENCE
            ? "fence"
            : op === WGMMA_WAIT_GROUP
              ? "wait"
              : op === WGMMA_COMMIT_GROUP
                ? "commit"
                : op === "tvm_storage_sync"
                  ? "barrier"
                  : "other";
      out.push(event);
      return out;
    }
    default:
      throw new Error(`unexpected ${s.kind}`);
  }
}

/** The first PTX rule the trace breaks, or undefined. */
function broken(events: readonly Event[]): string | undefined {
  let inFlight = false;
  let fenced = false;
  for (const [i, e] of events.entries()) {
    if (e === "fence") fenced = true;
    else if (e === "wgmma") {
      if (!fenced) return `event ${i}: a wgmma without a fence since the last other instruction`;
      inFlight = true;
    } else if (e === "wait") inFlight = false;
    else if (e === "commit") continue;
    else {
      if (inFlight && (e === "barrier" || e === "acc")) return `event ${i}: a ${e} while a wgmma is in flight`;
      fenced = false;
    }
  }
  return undefined;
}

/** `s` without the pass's fences and waits. */
function stripped(s: Stmt): Stmt {
  switch (s.kind) {
    case "SeqStmt":
      return seq(
        s.seq
          .filter((x) => !(x.kind === "Evaluate" && x.value.kind === "Call" && (x.value.op === WGMMA_FENCE || x.value.op === WGMMA_WAIT_GROUP)))
          .map(stripped),
      );
    case "For":
    case "Allocate":
      return { ...s, body: stripped(s.body) };
    default:
      return s;
  }
}

const kernel = (body: Stmt): PrimFunc => primFunc([], new Map(), allocate(acc, allocate(other, body)));

describe("injectWgmmaSync", () => {
  it("fences before every wgmma and waits before every barrier and accumulator access, in any execution", () => {
    fc.assert(
      fc.property(stmt, (body) => {
        const events = trace(injectWgmmaSync(kernel(body)).body);
        expect(broken(events)).toBeUndefined();
        // Without the pass the rules break wherever a wgmma runs.
        if (trace(body).includes("wgmma")) expect(broken(trace(body))).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("only inserts: without its fences and waits the kernel is the input", () => {
    fc.assert(
      fc.property(stmt, (body) => {
        const after = injectWgmmaSync(kernel(body)).body;
        expect(stripped(after)).toEqual(allocate(acc, allocate(other, body)));
      }),
      { numRuns: 200 },
    );
  });

  it("waits naming the accumulator and its registers", () => {
    const after = injectWgmmaSync(kernel(seq([wgmma(), barrier()]))).body;
    const waits: Call[] = [];
    const visit = (s: Stmt): void => {
      if (s.kind === "SeqStmt") s.seq.forEach(visit);
      else if (s.kind === "Allocate") visit(s.body);
      else if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === WGMMA_WAIT_GROUP) waits.push(s.value);
    };
    visit(after);
    expect(waits).toHaveLength(1);
    const args = waits[0]!.args;
    expect(args[0]).toEqual(intImm(0));
    expect(args[1]).toBe(acc.data);
    expect(args[2]).toEqual(intImm(64));
  });
});

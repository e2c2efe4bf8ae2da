/**
 * Replays the TVM schedule tests described by extract.py's JSON through our Schedule and reports
 * which ones behave as TVM expects. Local developer tool (reads TVM's files at run time).
 *
 *   python3 extract.py <tvm-git-dir> rfactor compute_at … > /tmp/cases.json
 *   npx tsx --conditions=@tessera/source run.ts /tmp/cases.json [name-filter] [-v]
 */
import { readFileSync } from "node:fs";
import { type PrimFunc, type Stmt, TesseraError, forEachStmt, parsePrimFunc, structuralDiff } from "@tessera/ir";
import { BlockRV, type LoopRV, Schedule, ScheduleError, TensorIntrin } from "../../src/index.js";

type Expr =
  | { t: "const"; v: unknown }
  | { t: "list"; items: Expr[] }
  | { t: "var"; n: string }
  | { t: "func"; n: string }
  | { t: "mod" }
  | { t: "sub"; obj: Expr; idx: Expr }
  | { t: "star"; v: Expr }
  | { t: "call"; m: string; args: Expr[]; kw: Record<string, Expr> };
type Target = string | Target[] | { star: Target };
type Op =
  | { op: "defunc"; n: string; text: string }
  | { op: "sched"; v: string; func: string }
  | { op: "schedcopy"; v: string; from: string }
  | { op: "assign"; to: Target; value: Expr }
  | { op: "expr"; value: Expr }
  | { op: "check"; expected: Expr }
  | { op: "roundtrip"; sch: string }
  | { op: "raises"; kind: string; body: Op[] };
interface Case {
  file: string;
  name: string;
  xfail?: boolean;
  unsupported?: string;
  ops?: Op[];
  funcs?: Record<string, string>;
  /** Tensor intrinsics the test file registers at module level. */
  intrins?: { name: string; desc: string; impl: string }[];
}

class Fail extends Error {}
class Skip extends Error {}

const BY_NAME_BLOCKS = process.env.BY_NAME !== "0";

function blockNames(f: PrimFunc): string[] {
  const out: string[] = [];
  forEachStmt(f.body, (s: Stmt) => {
    if (s.kind === "BlockRealize") out.push(s.block.name);
  });
  return out;
}

function runCase(c: Case): { status: "pass" | "fail" | "skip" | "names"; msg: string } {
  const funcs = new Map<string, PrimFunc>();
  const funcText = { ...c.funcs };
  const getFunc = (n: string): PrimFunc => {
    let f = funcs.get(n);
    if (!f) {
      const text = funcText[n];
      if (text === undefined) throw new Skip(`unknown func ${n}`);
      try {
        f = withBareRoot(parsePrimFunc(process.env.PREPARSE === "1" ? preparse(text) : text));
      } catch (e) {
        throw new Skip(`parse ${n}: ${(e as Error).message.split("\n")[0]}`);
      }
      funcs.set(n, f);
    }
    return f;
  };
  const vars = new Map<string, unknown>();
  const scheds = new Map<string, { sch: Schedule; orig: PrimFunc }>();
  let current: Schedule | undefined;
  const blockArg = (sch: Schedule, v: unknown): unknown => (typeof v === "string" && !BY_NAME_BLOCKS ? sch.getBlock(v) : v);

  const call = (sch: Schedule, m: string, args: unknown[], kw: Record<string, unknown>): unknown => {
    const a = (i: number, name: string, dflt?: unknown) => (i < args.length ? args[i] : name in kw ? kw[name] : dflt);
    const s = sch as unknown as Record<string, (...x: unknown[]) => unknown>;
    switch (m) {
      case "get_sblock":
        return sch.getBlock(a(0, "name") as string);
      case "get_loops":
        return s.getLoops!(blockArg(sch, a(0, "block")));
      case "get_child_blocks":
        return s.getChildBlocks!(blockArg(sch, a(0, "block_or_loop")));
      case "get_producers":
        return s.getProducers!(blockArg(sch, a(0, "block")));
      case "get_consumers":
        return s.getConsumers!(blockArg(sch, a(0, "block")));
      case "split":
        return sch.split(a(0, "loop") as LoopRV, a(1, "factors") as number[], {
          preserveUnitIters: a(2, "preserve_unit_iters", true) as boolean,
          disablePredication: a(3, "disable_predication", false) as boolean,
        });
      case "fuse":
        return sch.fuse(...(args as LoopRV[]));
      case "reorder":
        return sch.reorder(...(args as LoopRV[]));
      case "parallel":
        return sch.parallel(a(0, "loop") as LoopRV);
      case "vectorize":
        return sch.vectorize(a(0, "loop") as LoopRV);
      case "unroll":
        return sch.unroll(a(0, "loop") as LoopRV);
      case "bind":
        return sch.bind(a(0, "loop") as LoopRV, a(1, "thread_axis") as string);
      case "cache_read":
        return s.cacheRead!(
          blockArg(sch, a(0, "block")),
          a(1, "read_buffer_index"),
          a(2, "storage_scope"),
          ((a(3, "consumer_blocks", []) as unknown[] | null) ?? []).map((b) => blockArg(sch, b)),
        );
      case "cache_write":
        return s.cacheWrite!(
          blockArg(sch, a(0, "block")),
          a(1, "write_buffer_index"),
          a(2, "storage_scope"),
          ((a(3, "consumer_blocks", []) as unknown[] | null) ?? []).map((b) => blockArg(sch, b)),
        );
      case "compute_at":
        return s.computeAt!(blockArg(sch, a(0, "block")), a(1, "loop"), a(2, "preserve_unit_loops", false), a(3, "index", -1));
      case "reverse_compute_at":
        return s.reverseComputeAt!(blockArg(sch, a(0, "block")), a(1, "loop"), a(2, "preserve_unit_loops", false), a(3, "index", -1));
      case "compute_inline":
        return s.computeInline!(blockArg(sch, a(0, "block")));
      case "reverse_compute_inline":
        return s.reverseComputeInline!(blockArg(sch, a(0, "block")));
      case "decompose_reduction":
        return s.decomposeReduction!(blockArg(sch, a(0, "block")), a(1, "loop"));
      case "rfactor":
        return sch.rfactor(a(0, "loop") as LoopRV, a(1, "factor_axis") as number);
      case "set_scope":
        return s.setScope!(blockArg(sch, a(0, "block")), a(1, "buffer_index"), a(2, "storage_scope"));
      case "storage_align":
        return s.storageAlign!(blockArg(sch, a(0, "block")), a(1, "buffer_index"), a(2, "axis"), a(3, "factor"), a(4, "offset"));
      case "annotate":
        return s.annotate!(blockArg(sch, a(0, "block_or_loop")), a(1, "ann_key"), a(2, "ann_val"));
      case "blockize": {
        const target = a(0, "target");
        const blocks = Array.isArray(target) ? target.map((b) => blockArg(sch, b)) : target;
        return s.blockize!(blocks, { preserveUnitIters: a(1, "preserve_unit_iters", true) });
      }
      case "tensorize":
        return s.tensorize!(blockArg(sch, a(0, "block_or_loop")), a(1, "tensor_intrin"), { preserveUnitIters: a(2, "preserve_unit_iters", true) });
      case "get":
        return undefined;
      default:
        throw new Skip(`method ${m}`);
    }
  };

  const evalE = (e: Expr): unknown => {
    switch (e.t) {
      case "const":
        return e.v;
      case "list":
        return e.items.flatMap((x) => (x.t === "star" ? (evalE(x.v) as unknown[]) : [evalE(x)]));
      case "var": {
        if (!vars.has(e.n)) throw new Skip(`unknown variable ${e.n}`);
        return vars.get(e.n);
      }
      case "func":
        return getFunc(e.n);
      case "mod":
        return current?.func;
      case "sub": {
        const obj = evalE(e.obj);
        if (e.obj.t === "mod") return obj;
        const idx = evalE(e.idx) as number;
        if (!Array.isArray(obj)) throw new Skip("subscript of a non-list");
        return obj[idx < 0 ? obj.length + idx : idx];
      }
      case "star":
        return evalE(e.v);
      case "call": {
        if (!current) throw new Skip("call without schedule");
        const args = e.args.flatMap((x) => (x.t === "star" ? (evalE(x.v) as unknown[]) : [evalE(x)]));
        const kw = Object.fromEntries(Object.entries(e.kw).map(([k, v]) => [k, evalE(v)]));
        return call(current, e.m, args, kw);
      }
    }
  };
  const bind = (t: Target, v: unknown): void => {
    if (typeof t === "string") {
      vars.set(t, v);
      return;
    }
    if (Array.isArray(t)) {
      const vs = v as unknown[];
      if (!Array.isArray(vs)) throw new Fail(`cannot destructure ${String(v)}`);
      const star = t.findIndex((x) => typeof x === "object" && !Array.isArray(x));
      if (star < 0 && vs.length !== t.length) throw new Fail(`destructuring ${vs.length} values into ${t.length} names`);
      t.forEach((x, i) => {
        if (typeof x === "object" && !Array.isArray(x)) bind(x.star, vs.slice(i, vs.length - (t.length - i - 1)));
        else bind(x, star >= 0 && i > star ? vs[vs.length - (t.length - i)] : vs[i]);
      });
      return;
    }
    bind(t.star, v);
  };
  const exec = (op: Op): void => {
    switch (op.op) {
      case "defunc":
        funcText[op.n] = op.text;
        funcs.delete(op.n);
        return;
      case "sched": {
        const f = getFunc(op.func);
        current = new Schedule(f);
        scheds.set(op.v, { sch: current, orig: f });
        return;
      }
      case "schedcopy": {
        const from = scheds.get(op.from)!;
        current = new Schedule(from.sch.func);
        scheds.set(op.v, { sch: current, orig: from.sch.func });
        return;
      }
      case "assign":
        bind(op.to, evalE(op.value));
        return;
      case "expr":
        evalE(op.value);
        return;
      case "check": {
        const expected = evalE(op.expected) as PrimFunc;
        const diff = structuralDiff(current!.func, expected, { compareNames: false });
        if (diff !== undefined)
          throw new Fail(`structural difference: ${diff.message}\n--- actual ---\n${current!.script()}\n--- expected ---\n${funcTextOf(op.expected)}`);
        const an = blockNames(current!.func).join(","),
          en = blockNames(expected).join(",");
        if (an !== en && process.env.NAMES === "1") throw new NamesDiffer(`block names ${an} vs ${en}`);
        return;
      }
      case "roundtrip": {
        const { sch, orig } = scheds.get(op.sch)!;
        const fresh = new Schedule(orig);
        sch.trace.applyTo(fresh);
        const diff = structuralDiff(fresh.func, sch.func, { compareNames: true });
        if (diff !== undefined) throw new Fail(`trace roundtrip differs: ${diff.message}`);
        return;
      }
      case "raises": {
        try {
          for (const o of op.body) exec(o);
        } catch (e) {
          if (e instanceof Skip) throw e;
          if (e instanceof ScheduleError) return;
          if (op.kind.includes("RuntimeError") || op.kind.includes("TVMError") || op.kind === "Exception") {
            if (e instanceof TesseraError) return;
          }
          throw new Fail(`expected ${op.kind}, got ${(e as Error).name}: ${(e as Error).message.split("\n").slice(-1)[0]}`);
        }
        throw new Fail(`expected ${op.kind}, but nothing was raised`);
      }
    }
  };
  const funcTextOf = (e: Expr): string => (e.t === "func" ? (funcText[e.n] ?? "") : "");
  try {
    for (const { name, desc, impl } of c.intrins ?? []) {
      try {
        TensorIntrin.register(name, desc, impl, { override: true });
      } catch (e) {
        if (name.length > 0 && JSON.stringify(c.ops).includes(`"${name}"`)) throw new Skip(`intrinsic ${name}: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    for (const op of c.ops!) exec(op);
    return { status: "pass", msg: "" };
  } catch (e) {
    if (e instanceof Skip) return { status: "skip", msg: e.message };
    if (e instanceof NamesDiffer) return { status: "names", msg: e.message };
    if (e instanceof Fail) return { status: "fail", msg: e.message };
    const err = e as Error;
    return { status: "fail", msg: `threw ${err?.name}: ${err?.message?.split("\n").slice(-3).join(" | ")}` };
  }
}
class NamesDiffer extends Error {}

/**
 * PREPARSE=1 (an estimate while the parser lacks them): rewrites TVMScript forms our parser does
 * not read yet into equivalent ones: `x: T.let[T.int32] = …` lets and `T.min_value` / `T.max_value`.
 */
function preparse(text: string): string {
  const limits: Record<string, [string, string]> = {
    float32: ["T.float32(-3.4028234663852886e+38)", "T.float32(3.4028234663852886e+38)"],
    int32: ["-2147483648", "2147483647"],
  };
  return text
    .replace(/T\.let\[(T\.\w+)\]/g, "$1")
    .replace(/T\.(min|max)_value\("(\w+)"\)/g, (m, which: string, dt: string) => limits[dt]?.[which === "min" ? 0 : 1] ?? m);
}

/** TVM's parser gives an explicitly written root block no reads/writes (ours infers them). */
function withBareRoot(f: PrimFunc): PrimFunc {
  const body = f.body;
  if (body.kind !== "BlockRealize" || body.block.name !== "root") return f;
  return { ...f, body: { ...body, block: { ...body.block, reads: [], writes: [] } } };
}
void BlockRV;

const [file, filter, verbose] = process.argv.slice(2);
const cases = (JSON.parse(readFileSync(file!, "utf8")) as Case[]).filter((c) => !filter || filter === "-" || c.name.includes(filter) || c.file === filter);
const per = new Map<string, Record<string, number>>();
for (const c of cases) {
  const row = per.get(c.file) ?? { pass: 0, fail: 0, skip: 0, names: 0, unsupported: 0 };
  per.set(c.file, row);
  if (c.unsupported !== undefined) {
    row.unsupported!++;
    continue;
  }
  const r = runCase(c);
  row[r.status]!++;
  if (r.status !== "pass") {
    const text = verbose === "-v" ? r.msg : r.msg.split("\n")[0]!.slice(0, 220);
    console.log(`${r.status.toUpperCase().padEnd(5)} ${c.file} ${c.name}${c.xfail ? " (xfail in TVM)" : ""}: ${text}`);
  }
}
for (const [f, r] of per) console.log(`${f.padEnd(20)} pass ${r.pass}  fail ${r.fail}  names ${r.names}  skip ${r.skip}  unsupported ${r.unsupported}`);

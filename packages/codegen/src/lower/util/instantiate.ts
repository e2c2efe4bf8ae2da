/**
 * Copies of a statement with one variable fixed to a constant, as loop unrolling and virtual
 * thread injection produce them: the variable replaced, and the index arithmetic and conditions
 * that mention it folded (`i * 4 + 16` rather than `i * 4 + 1 * 16`), so that later passes see
 * plain affine indices.
 *
 * Indices are usually linear in the variable (`rest + v * c`): those are decomposed once for all
 * copies and each copy only adds its constant, which keeps unrolling cheap; other expressions are
 * substituted and simplified per copy. Subtrees that do not mention the variable come out of the
 * first copy unchanged; later copies share them without walking them again.
 */
import {
  type BufferLoad,
  type LinearForm,
  type PrimExpr,
  type Stmt,
  Substituter,
  type Var,
  intImm,
  lanesOf,
  linearFormOf,
  linearFormToExpr,
  ramp,
  simplify,
  substitute,
} from "@tessera/ir";
import { readsAny } from "./reads.js";

/** `body` once per value of `variable`, indices and conditions simplified. */
export function instantiations(body: Stmt, variable: Var, values: readonly number[]): Stmt[] {
  const indices = new LinearIndices(variable);
  const invariant = new Set<PrimExpr | Stmt>();
  return values.map((value) => new Instance(variable, value, indices, invariant).visitStmt(body));
}

/** Index expressions split into `rest + variable * coefficient`, computed once per expression. */
class LinearIndices {
  private readonly forms = new Map<PrimExpr, { rest: LinearForm; coefficient: number } | null>();
  private readonly variableOnly: ReadonlySet<Var>;

  constructor(private readonly variable: Var) {
    this.variableOnly = new Set([variable]);
  }

  /** `index` at `variable = value`, folded. */
  at(index: PrimExpr, value: number): PrimExpr {
    if (index.kind === "Ramp" && !readsAny(index.stride, this.variableOnly)) {
      return ramp(this.at(index.base, value), index.stride, index.lanes);
    }
    const split = lanesOf(index.dtype) === 1 ? this.split(index) : null;
    if (split === null) return simplify(substitute(index, (v) => (v === this.variable ? intImm(value, v.dtype) : undefined)));
    if (split.coefficient === 0) return index;
    return linearFormToExpr({ ...split.rest, constant: split.rest.constant + split.coefficient * value });
  }

  private split(index: PrimExpr): { rest: LinearForm; coefficient: number } | null {
    let split = this.forms.get(index);
    if (split !== undefined) return split;
    const form = linearFormOf(index);
    const term = form.terms.find((t) => t.atom === this.variable);
    const linear = form.terms.every((t) => t === term || !readsAny(t.atom, this.variableOnly));
    split = linear ? { rest: { ...form, terms: form.terms.filter((t) => t !== term) }, coefficient: term?.coef ?? 0 } : null;
    this.forms.set(index, split);
    return split;
  }
}

class Instance extends Substituter {
  constructor(
    variable: Var,
    private readonly value: number,
    private readonly indices: LinearIndices,
    /** Nodes an earlier copy left unchanged: they do not mention the variable. */
    private readonly invariant: Set<PrimExpr | Stmt>,
  ) {
    super((v) => (v === variable ? intImm(value, v.dtype) : undefined));
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm" || e.kind === "Var") return super.visitExpr(e);
    if (this.invariant.has(e)) return e;
    const out = super.visitExpr(e);
    if (out === e) this.invariant.add(e);
    return out;
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e);
    if (load === e || load.kind !== "BufferLoad") return load;
    return { kind: "BufferLoad", dtype: load.dtype, buffer: load.buffer, indices: e.indices.map((i) => this.indices.at(i, this.value)) };
  }

  override visitStmt(s: Stmt): Stmt {
    if (this.invariant.has(s)) return s;
    const out = super.visitStmt(s);
    if (out === s) {
      this.invariant.add(s);
      return s;
    }
    if (out.kind === "BufferStore" && s.kind === "BufferStore") {
      return { kind: "BufferStore", buffer: out.buffer, value: out.value, indices: s.indices.map((i) => this.indices.at(i, this.value)) };
    }
    if (out.kind === "IfThenElse") return { ...out, condition: simplify(out.condition) };
    return out;
  }
}

"""Reads TVM's schedule test files (from the bare TVM mirror, at run time) and writes a JSON
description of each test: the prim_func texts it uses and its schedule calls as a small command
list, for run.ts to replay through our Schedule. Nothing of TVM is stored in this repository.

usage: python3 extract.py <tvm-git-dir> <primitive-file-stem>... > cases.json
"""
import ast
import itertools
import json
import subprocess
import sys
import textwrap

TEST_DIR = "tests/python/s_tir/schedule/"


class Unsupported(Exception):
    pass


def is_prim_func(fn):
    for d in fn.decorator_list:
        src = ast.unparse(d)
        if src.startswith("T.prim_func"):
            return True
    return False


def func_text(src, fn):
    seg = ast.get_source_segment(src, fn, padded=True)
    first = fn.decorator_list[0] if fn.decorator_list else fn
    lines = src.splitlines()[first.lineno - 1 : fn.end_lineno]
    return textwrap.dedent("\n".join(lines)) + "\n"


class Translator:
    def __init__(self, src, funcs, env):
        self.src = src
        self.funcs = dict(funcs)
        self.env = env  # parameter values (use_block_name, …)
        self.scheds = set()

    def expr(self, e):
        if isinstance(e, ast.Constant):
            return {"t": "const", "v": e.value}
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
            return {"t": "const", "v": -e.operand.value}
        if isinstance(e, (ast.List, ast.Tuple)):
            return {"t": "list", "items": [self.expr(x) for x in e.elts]}
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return {"t": "const", "v": self.env[e.id]}
            if e.id in self.funcs:
                return {"t": "func", "n": e.id}
            return {"t": "var", "n": e.id}
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "with_attr":
            # `expected.with_attr("global_symbol", …)`: attributes are not compared.
            return self.expr(e.func.value)
        if isinstance(e, ast.IfExp):
            c = self.const_cond(e.test)
            return self.expr(e.body if c else e.orelse)
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Attribute) and e.value.attr == "mod":
                return {"t": "mod"}
            return {"t": "sub", "obj": self.expr(e.value), "idx": self.expr(e.slice)}
        if isinstance(e, ast.Attribute) and e.attr == "mod" and isinstance(e.value, ast.Name) and e.value.id in self.scheds:
            return {"t": "mod"}
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name) and e.func.value.id in self.scheds:
            args = []
            for a in e.args:
                if isinstance(a, ast.Starred):
                    args.append({"t": "star", "v": self.expr(a.value)})
                else:
                    args.append(self.expr(a))
            kw = {k.arg: self.expr(k.value) for k in e.keywords}
            return {"t": "call", "m": e.func.attr, "args": args, "kw": kw}
        if isinstance(e, ast.Call) and ast.unparse(e.func) in ("T.int64", "T.int32"):
            return self.expr(e.args[0])
        raise Unsupported("expr: " + ast.unparse(e)[:120])

    def const_cond(self, t):
        if isinstance(t, ast.Name) and t.id in self.env:
            return bool(self.env[t.id])
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            return not self.const_cond(t.operand)
        raise Unsupported("condition: " + ast.unparse(t)[:80])

    def targets(self, t):
        if isinstance(t, ast.Name):
            return t.id
        if isinstance(t, (ast.Tuple, ast.List)):
            return [self.targets(x) for x in t.elts]
        if isinstance(t, ast.Starred):
            return {"star": self.targets(t.value)}
        raise Unsupported("target: " + ast.unparse(t)[:80])

    def stmts(self, body):
        out = []
        for s in body:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, ast.FunctionDef):
            if is_prim_func(s):
                self.funcs[s.name] = func_text(self.src, s)
                return [{"op": "defunc", "n": s.name, "text": self.funcs[s.name]}]
            raise Unsupported("nested def " + s.name)
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            v = s.value
            if isinstance(v, ast.Call) and ast.unparse(v.func).endswith("Schedule"):
                name = s.targets[0].id
                self.scheds.add(name)
                arg = v.args[0] if v.args else [k.value for k in v.keywords if k.arg == "mod"][0]
                if isinstance(arg, ast.Name) and arg.id in self.funcs:
                    return [{"op": "sched", "v": name, "func": arg.id}]
                if isinstance(arg, ast.Attribute) and arg.attr == "mod" and isinstance(arg.value, ast.Name) and arg.value.id in self.scheds:
                    return [{"op": "schedcopy", "v": name, "from": arg.value.id}]
                raise Unsupported("schedule of " + ast.unparse(arg)[:80])
            if isinstance(v, ast.Name) and v.id in self.funcs:
                self.funcs[s.targets[0].id] = self.funcs[v.id]
                return []
            return [{"op": "assign", "to": self.targets(s.targets[0]), "value": self.expr(v)}]
        if isinstance(s, ast.Expr):
            v = s.value
            if isinstance(v, ast.Constant):
                return []
            if isinstance(v, ast.Call):
                fname = ast.unparse(v.func)
                if "assert_structural_equal" in fname:
                    a, b = v.args[0], v.args[1]
                    ea, eb = self.expr(a), self.expr(b)
                    if ea["t"] == "mod" or (ea["t"] == "sub" and ea["obj"].get("t") == "mod"):
                        return [{"op": "check", "expected": eb}]
                    if eb["t"] == "mod" or (eb["t"] == "sub" and eb["obj"].get("t") == "mod"):
                        return [{"op": "check", "expected": ea}]
                    raise Unsupported("structural equal of " + ast.unparse(v)[:80])
                if fname.endswith("verify_trace_roundtrip"):
                    return [{"op": "roundtrip", "sch": v.args[0].id if v.args else v.keywords[0].value.id}]
                if fname == "print":
                    return []
            return [{"op": "expr", "value": self.expr(v)}]
        if isinstance(s, ast.With):
            item = s.items[0].context_expr
            src = ast.unparse(item)
            if src.startswith("pytest.raises"):
                return [{"op": "raises", "kind": ast.unparse(item.args[0]) if item.args else "", "body": self.stmts(s.body)}]
            raise Unsupported("with " + src[:60])
        if isinstance(s, ast.Assert):
            return []
        if isinstance(s, ast.If):
            c = self.const_cond(s.test)
            return self.stmts(s.body if c else s.orelse)
        if isinstance(s, ast.Pass):
            return []
        raise Unsupported("stmt: " + ast.unparse(s)[:120])


def param_sets(fn, module_params):
    """The parameter combinations of a test: TVM's `tvm.testing.parameter` fixtures and simple
    `pytest.mark.parametrize` lists."""
    axes = []
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.parametrize":
            names = ast.literal_eval(d.args[0])
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            values = ast.literal_eval(d.args[1])
            if len(names) == 1:
                values = [(v,) for v in values]
            axes.append([dict(zip(names, v)) for v in values])
    for a in fn.args.args:
        if a.arg in module_params:
            axes.append([{a.arg: v} for v in module_params[a.arg]])
        elif not any(a.arg in ax[0] for ax in axes if ax):
            raise Unsupported("fixture " + a.arg)
    combos = []
    for prod in itertools.product(*axes):
        env = {}
        for p in prod:
            env.update(p)
        combos.append(env)
    return combos or [{}]


def module_parameters(tree):
    params = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and ast.unparse(s.value.func) == "tvm.testing.parameter":
            name = s.targets[0].id
            kw = {k.arg: k.value for k in s.value.keywords}
            if "by_dict" in kw:
                params[name] = list(ast.literal_eval(kw["by_dict"]).values())
            else:
                params[name] = [ast.literal_eval(a) for a in s.value.args]
    return params


def module_intrinsics(tree, funcs):
    """Module-level `TensorIntrin.register("name", desc, impl)` of prim funcs defined in the file."""
    out = []
    for s in tree.body:
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)):
            continue
        call = s.value
        if not ast.unparse(call.func).endswith("TensorIntrin.register") or len(call.args) < 3:
            continue
        name, desc, impl = call.args[:3]
        if isinstance(name, ast.Constant) and isinstance(desc, ast.Name) and isinstance(impl, ast.Name) and desc.id in funcs and impl.id in funcs:
            out.append({"name": name.value, "desc": funcs[desc.id], "impl": funcs[impl.id]})
    return out


def extract(gitdir, stem):
    path = TEST_DIR + "test_tir_schedule_" + stem + ".py"
    src = subprocess.run(["git", "-C", gitdir, "show", "HEAD:" + path], capture_output=True, text=True, check=True).stdout
    tree = ast.parse(src)
    funcs = {}
    for s in tree.body:
        if isinstance(s, ast.FunctionDef) and is_prim_func(s):
            funcs[s.name] = func_text(src, s)
    params = module_parameters(tree)
    intrins = module_intrinsics(tree, funcs)
    cases = []
    for s in tree.body:
        if not (isinstance(s, ast.FunctionDef) and s.name.startswith("test_")):
            continue
        xfail = any("xfail" in ast.unparse(d) or "skip" in ast.unparse(d) for d in s.decorator_list)
        try:
            combos = param_sets(s, params)
        except Unsupported as u:
            cases.append({"file": stem, "name": s.name, "unsupported": str(u)})
            continue
        for env in combos:
            label = s.name + ("[" + ",".join(f"{k}={v}" for k, v in env.items()) + "]" if env else "")
            tr = Translator(src, funcs, env)
            try:
                ops = tr.stmts(s.body)
                used = sorted({n for n in funcs if n in json.dumps(ops)})
                cases.append({"file": stem, "name": label, "xfail": xfail, "ops": ops,
                              "funcs": {n: tr.funcs[n] for n in tr.funcs if f'"{n}"' in json.dumps(ops)},
                              "intrins": intrins})
            except Unsupported as u:
                cases.append({"file": stem, "name": label, "unsupported": str(u)})
    return cases


if __name__ == "__main__":
    gitdir = sys.argv[1]
    out = []
    for stem in sys.argv[2:]:
        out.extend(extract(gitdir, stem))
    json.dump(out, sys.stdout, indent=1)

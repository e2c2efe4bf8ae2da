/** The code editor (CodeMirror 6, TypeScript mode) with line marks for the selected step and for errors. */
import { javascript } from "@codemirror/lang-javascript";
import { type Extension, RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";

export type LineMark = { readonly line: number; readonly kind: "step" | "error" | "race" };

const setMarks = StateEffect.define<readonly LineMark[]>();

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const effect of tr.effects) {
      if (!effect.is(setMarks)) continue;
      const builder = new RangeSetBuilder<Decoration>();
      const valid = effect.value.filter((m) => m.line >= 1 && m.line <= tr.state.doc.lines).sort((a, b) => a.line - b.line);
      for (const mark of valid) {
        const line = tr.state.doc.line(mark.line);
        builder.add(line.from, line.from, Decoration.line({ class: `cm-mark-${mark.kind}`, attributes: { "data-mark": mark.kind } }));
      }
      return builder.finish();
    }
    return tr.docChanged ? marks.map(tr.changes) : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

export interface Editor {
  text(): string;
  setText(text: string): void;
  mark(marks: readonly LineMark[]): void;
}

export function createEditor(parent: HTMLElement, onChange: () => void): Editor {
  const extensions: Extension[] = [
    basicSetup,
    javascript({ typescript: true }),
    marksField,
    EditorView.updateListener.of((u) => {
      if (u.docChanged) onChange();
    }),
  ];
  const view = new EditorView({ parent, extensions });
  return {
    text: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    mark: (marks) => {
      const first = marks.find((m) => m.kind !== "step") ?? marks[0];
      const effects: StateEffect<unknown>[] = [setMarks.of(marks)];
      if (first !== undefined && first.line >= 1 && first.line <= view.state.doc.lines) {
        effects.push(EditorView.scrollIntoView(view.state.doc.line(first.line).from, { y: "center" }));
      }
      view.dispatch({ effects });
    },
  };
}

// Undo and redo for the editor: a bounded stack of snapshots of the editor's whole state
// (picture or clues, givens, name). Every operation records the state it starts from; undo
// swaps the current state with the last recorded one, redo swaps it back. The history lives in
// the editor (not in a mode), so it is kept across mode switches.

/** Most snapshots kept (the oldest are dropped). A 100x100 picture is about 10 kB. */
export const HISTORY_LIMIT = 200;

export class History {
  /** `onChange()` is called whenever what can be undone or redone changes. */
  constructor(onChange = () => {}, limit = HISTORY_LIMIT) {
    this.past = [];
    this.future = [];
    this.limit = limit;
    this.onChange = onChange;
  }

  /** Record `snapshot`, the state before an operation; clears what could be redone. */
  record(snapshot) {
    this.past.push(snapshot);
    if (this.past.length > this.limit) this.past.splice(0, this.past.length - this.limit);
    this.future = [];
    this.onChange();
  }

  /** The snapshot to go back to (null when there is none); `current` can then be redone. */
  undo(current) {
    if (!this.past.length) return null;
    this.future.push(current);
    const out = this.past.pop();
    this.onChange();
    return out;
  }

  /** The snapshot to go forward to (null when there is none); `current` can then be undone. */
  redo(current) {
    if (!this.future.length) return null;
    this.past.push(current);
    const out = this.future.pop();
    this.onChange();
    return out;
  }

  get canUndo() { return this.past.length > 0; }

  get canRedo() { return this.future.length > 0; }

  clear() {
    this.past = [];
    this.future = [];
    this.onChange();
  }
}

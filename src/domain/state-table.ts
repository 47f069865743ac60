/**
 * A status machine written as data: each action names who may take it, the statuses it may be
 * taken from and the status it leads to. Services derive their SQL guards from it
 * (`WHERE status = ANY($from)`), views derive the actions a caller may take now, and tests walk
 * the whole table, so a rule lives in one place. Pure: no I/O, no clock.
 */
export interface Transition<S extends string, R extends string> {
  /** Who may take the action. */
  actors: readonly R[];
  /** The statuses the action may be taken from. */
  from: readonly S[];
  /** The status after the action; `null` leaves the status as it is. */
  to: S | null;
}

export type StateTable<S extends string, A extends string, R extends string> = Readonly<Record<A, Transition<S, R>>>;

/** Whether `actor` may take `action` on something in `status`. */
export function allows<S extends string, A extends string, R extends string>(
  table: StateTable<S, A, R>,
  status: S,
  actor: R,
  action: A,
): boolean {
  const t = table[action];
  return t.actors.includes(actor) && t.from.includes(status);
}

/** The actions `actor` may take now, in the table's order. */
export function actionsAllowed<S extends string, A extends string, R extends string>(table: StateTable<S, A, R>, status: S, actor: R): A[] {
  return (Object.keys(table) as A[]).filter((action) => allows(table, status, actor, action));
}

/** The status after an allowed action. */
export function statusAfter<S extends string, A extends string, R extends string>(table: StateTable<S, A, R>, status: S, action: A): S {
  return table[action].to ?? status;
}

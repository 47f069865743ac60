/**
 * A WHERE clause built from optional filters, with numbered parameters: every value is bound,
 * never spliced into the SQL. `$?` in a condition stands for the next value given with it.
 */
export class SqlFilter {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  /** Binds a value; answers its placeholder (`$n`). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(condition: string, ...values: unknown[]): void {
    let next = 0;
    this.conditions.push(condition.replace(/\$\?/g, () => this.param(values[next++])));
  }

  sql(): string {
    return this.conditions.length > 0 ? this.conditions.join(' AND ') : 'true';
  }
}

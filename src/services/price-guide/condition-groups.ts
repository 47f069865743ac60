import { CONDITIONS } from '../listings/listing-input';

type Condition = (typeof CONDITIONS)[number];

/**
 * The price guide's condition groups, best first (docs/price-guide.md, "Condition groups"): copies
 * a buyer treats as interchangeable. Every condition is in exactly one group.
 */
export const CONDITION_GROUPS = [
  { group: 'NEAR_MINT', conditions: ['MINT', 'NEAR_MINT'] },
  { group: 'EXCELLENT', conditions: ['EXCELLENT', 'GOOD'] },
  { group: 'PLAYED', conditions: ['LIGHT_PLAYED', 'PLAYED', 'POOR'] },
] as const satisfies ReadonlyArray<{ group: string; conditions: readonly Condition[] }>;

export type ConditionGroup = (typeof CONDITION_GROUPS)[number]['group'];

export const GROUP_NAMES: readonly ConditionGroup[] = CONDITION_GROUPS.map((g) => g.group);

const GROUP_OF = new Map<string, ConditionGroup>(CONDITION_GROUPS.flatMap((g) => g.conditions.map((c) => [c, g.group] as const)));

/** The group of a listing's condition (every stored condition has one). */
export function groupOf(condition: string): ConditionGroup {
  const group = GROUP_OF.get(condition);
  if (!group) throw new Error(`condition ${condition} is in no price guide group`);
  return group;
}

/** The groups as an SQL `VALUES` list `(group, conditions, position)`, for joins. Constants only: no user input. */
export const GROUPS_VALUES_SQL = CONDITION_GROUPS.map(
  (g, n) => `('${g.group}', ARRAY[${g.conditions.map((c) => `'${c}'`).join(', ')}]::text[], ${n})`,
).join(', ');

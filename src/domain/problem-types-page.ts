import { PROBLEM_AREAS, PROBLEM_TYPES, type ProblemArea, type ProblemCode } from './problem-types';

/** The rows of one area's table, by status, then in catalogue order; consecutive codes with the same status and text share a row. */
function areaRows(area: ProblemArea): Array<{ codes: ProblemCode[]; status: number; when: string }> {
  const rows: Array<{ codes: ProblemCode[]; status: number; when: string }> = [];
  const byStatus = (Object.entries(PROBLEM_TYPES) as Array<[ProblemCode, (typeof PROBLEM_TYPES)[ProblemCode]]>).sort(
    ([, a], [, b]) => a.status - b.status,
  );
  for (const [code, type] of byStatus) {
    const when = (type.when as Partial<Record<ProblemArea, string>>)[area];
    if (when === undefined) continue;
    const last = rows.at(-1);
    if (last && last.status === type.status && last.when === when) last.codes.push(code);
    else rows.push({ codes: [code], status: type.status, when });
  }
  return rows;
}

/** docs/errors.md, from the catalogue (`npm run docs:errors`). */
export function problemTypesMarkdown(): string {
  const parts = [
    '<!-- Generated from src/domain/problem-types.ts by `npm run docs:errors`; edit that file, not this page. -->',
    '',
    '# Problem types',
    '',
  ];
  for (const area of PROBLEM_AREAS) {
    if (area.title) parts.push('', `## ${area.title}`, '');
    if (area.intro) parts.push(area.intro, '');
    parts.push('| code | status | when |', '|---|---|---|');
    for (const row of areaRows(area.key)) parts.push(`| ${row.codes.map((c) => `\`${c}\``).join(', ')} | ${row.status} | ${row.when} |`);
    if (area.outro) parts.push('', area.outro);
    parts.push('');
  }
  return parts.join('\n');
}

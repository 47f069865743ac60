import Joi from '../../joi';
import { isProblemCode, PROBLEM_AREAS, PROBLEM_TYPES, type ProblemArea, type ProblemCode } from '../../domain/problem-types';
import { notFound } from '../../services/errors';
import { escapeHtml, htmlPage, PAGE_HEADERS } from '../pages';
import { defineRoute } from '../route';

/**
 * The catalogue's markdown as HTML: inline code kept, links shown as their text (the pages they
 * name are the repository's docs, which the API does not serve).
 */
const inlineHtml = (markdown: string) =>
  escapeHtml(markdown)
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page a problem's `type` URI names: its status and, per area of the API, when it is answered. */
function problemPage(code: ProblemCode): string {
  const type = PROBLEM_TYPES[code];
  const when = type.when as Partial<Record<ProblemArea, string>>;
  const cases = PROBLEM_AREAS.filter((area) => when[area.key] !== undefined).map(
    (area) => `<dt>${escapeHtml(area.title ?? 'Anywhere')}</dt><dd>${inlineHtml(when[area.key]!)}</dd>`,
  );
  return htmlPage(
    code,
    `<p class="muted">Problem type <code>/problems/${escapeHtml(code)}</code>, answered with HTTP status ${type.status}.</p>
<h2>When</h2>
<dl class="facts">${cases.join('')}</dl>
<p class="note">Clients branch on <code>type</code> or <code>status</code>; <code>detail</code> is prose for people.</p>`,
  );
}

export const problemPageRoutes = () => [
  defineRoute<'problemType', 'public'>({
    operationId: 'problemType',
    method: 'get',
    path: '/problems/{code}',
    tag: 'System',
    summary: 'What a problem type means: the page its `type` URI names',
    description:
      'Every problem+json answer has `type: /problems/{code}`; this page says when that code is answered and with which status. ' +
      'The list of codes is docs/errors.md.',
    auth: 'public',
    request: {
      params: Joi.object({
        code: Joi.string()
          .max(100)
          .pattern(/^[a-z0-9-]+$/, 'a problem code of lower-case letters, digits and "-"')
          .required(),
      }),
    },
    responses: {
      200: { description: 'The page.', contentType: 'text/html' },
      404: { description: 'No problem type has that code.' },
    },
    handler: async ({ params }) => {
      if (!isProblemCode(params.code)) throw notFound('Problem type');
      return {
        status: 200,
        body: problemPage(params.code),
        contentType: 'text/html; charset=utf-8',
        headers: { ...PAGE_HEADERS, 'Cache-Control': 'public, max-age=3600' },
      };
    },
  }),
];

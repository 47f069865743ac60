import { activitySummary } from '../../workflows/bounded-activities';

/** What an activity's summary shows in a workflow's history: its name and the ids and dates it is about, nothing else. */
describe('activitySummary', () => {
  it('names the activity and the ids and dates among its arguments', () => {
    expect(activitySummary('createPayout', ['01a2-seller', '2026-11-29'])).toBe('createPayout 01a2-seller 2026-11-29');
    expect(activitySummary('recordCaseChange', [{ caseId: 'c-1', changeId: 'ch-2', status: 'OPEN', comment: 'broken' }])).toBe(
      'recordCaseChange caseId=c-1 changeId=ch-2',
    );
    expect(activitySummary('reconcileMoney', [{ asOf: '2026-11-29T00:00:00.000Z' }])).toBe('reconcileMoney');
  });

  it('leaves out anything that reads as user text, however it is named', () => {
    expect(activitySummary('sendEmail', ['Hello there, your order', { messageId: 'with spaces in it' }])).toBe('sendEmail');
    expect(activitySummary('x', [{ orderIds: ['a', 'b'] }, 42, null])).toBe('x');
    expect(activitySummary('y', ['a'.repeat(300)]).length).toBeLessThanOrEqual(200);
  });
});

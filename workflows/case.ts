import { condition, defineSignal, setHandler } from '@temporalio/workflow';

/** Ends the placeholder case workflow; the cases issue replaces this with its own Updates. */
export const caseClosedSignal = defineSignal('caseClosed');

/**
 * `case:{caseId}`: placeholder until the cases issue. Starting it at dispute time gives every
 * case its workflow id from day one; for now it only waits until told the case is closed.
 */
export async function caseWorkflow(input: { caseId: string }): Promise<string> {
  let closed = false;
  setHandler(caseClosedSignal, () => {
    closed = true;
  });
  await condition(() => closed);
  return input.caseId;
}

import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of `conversation-notify:{conversationId}:{userId}` shared by the workflow and the
 * API. No I/O: both sides import it, so the signal and the input are defined once.
 */

/** A new message for the workflow's recipient in the workflow's conversation. */
export const newMessageSignal = defineSignal<[]>('newMessage');

export interface ConversationNotifyInput {
  conversationId: string;
  userId: string;
  /** Quiet time after the latest message before deciding: a burst becomes one e-mail. */
  graceMs: number;
  /** Longest the decision waits after the first message, however long the burst goes on. */
  maxDelayMs: number;
  /** The recipient counts as inactive after this long without an authenticated request. */
  inactiveSeconds: number;
}

import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './secrets';

/** What a signed link is for: a token made for one purpose never opens another's page. */
export type SignedLinkPurpose = 'billing-portal' | 'simulator-payouts' | 'simulator-billing';

/**
 * The one rule for the hosted pages opened through a link that is itself the credential (the
 * billing portal, the seller's payout and billing pages of the payment simulator), like a
 * payment provider's portal session: `<base64url(subject.expiresEpochSeconds)>.<HMAC-SHA256>`
 * keyed by the server secret over the purpose and the payload, valid `ttlSeconds`, nothing
 * stored. An altered, forged, expired or other-purpose token verifies to null.
 */
export class SignedLinks {
  constructor(private readonly options: { key: Uint8Array; ttlSeconds: number }) {}

  issue(purpose: SignedLinkPurpose, subject: string, now = new Date()): { token: string; expiresAt: Date } {
    const expiresAt = new Date(Math.floor(now.getTime() / 1000 + this.options.ttlSeconds) * 1000);
    const payload = Buffer.from(`${subject}.${expiresAt.getTime() / 1000}`).toString('base64url');
    return { token: `${payload}.${this.sign(purpose, payload)}`, expiresAt };
  }

  verify(purpose: SignedLinkPurpose, token: string, now = new Date()): { subject: string; expiresAt: Date } | null {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || !constantTimeEqual(signature, this.sign(purpose, payload))) return null;
    const [subject, expires] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
    if (!subject || !expires || !(Number(expires) * 1000 > now.getTime())) return null;
    return { subject, expiresAt: new Date(Number(expires) * 1000) };
  }

  private sign(purpose: SignedLinkPurpose, payload: string): string {
    return createHmac('sha256', this.options.key).update(`${purpose}:${payload}`).digest('base64url');
  }
}

/** The shape of a signed link's token, for the routes' path validation. */
export const SIGNED_LINK_TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

import { emailChangeCodeEmail } from '../../src/services/email/email-change-codes';
import { endpointDisabledEmail } from '../../src/services/webhooks/delivery-attempts';

describe('e-mail texts', () => {
  it('gives the verification code and how long it lasts', () => {
    const { subject, text } = emailChangeCodeEmail('123456', 10);
    expect(subject).toBe('Confirm your new e-mail address');
    expect(text).toContain('Your verification code is 123456.');
    expect(text).toContain('It expires in 10 minutes.');
  });

  it('tells a seller which endpoint was disabled, since when, and how to recover', () => {
    const { subject, text } = endpointDisabledEmail('ep-1', 'https://hooks.example.test/in', new Date('2026-11-20T08:00:00Z'));
    expect(subject).toBe('Your webhook endpoint was disabled');
    expect(text).toContain('https://hooks.example.test/in have failed since 2026-11-20T08:00:00.000Z');
    expect(text).toContain('PATCH /seller/webhooks/ep-1 with {"enabled": true}');
    expect(text).toContain('/seller/webhooks/ep-1/failures');
  });
});

import { SimulatorCarrier } from '../../src/integrations/carriers/simulator';

describe('SimulatorCarrier', () => {
  it('moves a known number one status per step from its first tracking, then stays DELIVERED', async () => {
    let now = 1_000_000;
    const carrier = new SimulatorCarrier({ stepSeconds: 60, now: () => now });
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const report = await carrier.track('SIM123');
      seen.push(report!.status);
      expect(report!.detail).not.toBe('');
      now += 60_000;
    }
    expect(seen).toEqual(['PRE_TRANSIT', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED', 'DELIVERED']);
  });

  it('keeps a status until its step has fully passed, per number', async () => {
    let now = 0;
    const carrier = new SimulatorCarrier({ stepSeconds: 60, now: () => now });
    await carrier.track('SIM-A');
    now += 59_999;
    expect((await carrier.track('sim-a'))!.status).toBe('PRE_TRANSIT');
    expect((await carrier.track('SIM-B'))!.status).toBe('PRE_TRANSIT');
    now += 1;
    expect((await carrier.track('SIM-A'))!.status).toBe('IN_TRANSIT');
  });

  it('does not know numbers outside its range', async () => {
    const carrier = new SimulatorCarrier({ stepSeconds: 60 });
    expect(await carrier.track('1Z999AA10123456784')).toBeNull();
  });
});

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdleTrimSchedule, trimYoungGenerationWhenIdle } from '../../src/http/young-generation-trim';

describe('IdleTrimSchedule', () => {
  it('never trims a process that has served nothing', () => {
    const schedule = new IdleTrimSchedule(6000);
    expect(schedule.due(0)).toBe(false);
    expect(schedule.due(60_000)).toBe(false);
  });

  it('collects twice after a spell of traffic: idleMs after its last request, and idleMs after that', () => {
    const schedule = new IdleTrimSchedule(6000);
    schedule.requested(1000);
    schedule.requested(4000);
    expect(schedule.due(9999)).toBe(false);
    expect(schedule.due(10_000)).toBe(true);
    expect(schedule.due(15_999)).toBe(false);
    expect(schedule.due(16_000)).toBe(true);
    expect(schedule.due(60_000)).toBe(false);
  });

  it('spaces the second collection idleMs after the first, however late the first came', () => {
    const schedule = new IdleTrimSchedule(6000);
    schedule.requested(0);
    expect(schedule.due(20_000)).toBe(true);
    expect(schedule.due(25_999)).toBe(false);
    expect(schedule.due(26_000)).toBe(true);
  });

  it('starts over on a request between the two', () => {
    const schedule = new IdleTrimSchedule(6000);
    schedule.requested(0);
    expect(schedule.due(6000)).toBe(true);
    schedule.requested(7000);
    expect(schedule.due(12_000)).toBe(false);
    expect(schedule.due(12_999)).toBe(false);
    expect(schedule.due(13_000)).toBe(true);
    expect(schedule.due(19_000)).toBe(true);
    expect(schedule.due(25_000)).toBe(false);
  });
});

describe('trimYoungGenerationWhenIdle', () => {
  let server: Server;
  let port: number;
  beforeEach(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = () =>
    new Promise<void>((resolve, reject) =>
      request({ port, host: '127.0.0.1', path: '/' }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end(),
    );
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs two minor collections once the server has been idle after a request, then none', async () => {
    const collect = jest.fn();
    const stop = trimYoungGenerationWhenIdle(server, collect, 60);
    try {
      await sleep(200);
      expect(collect).not.toHaveBeenCalled();
      await get();
      while (collect.mock.calls.length < 2) await sleep(20);
      expect(collect.mock.calls).toEqual([[{ type: 'minor' }], [{ type: 'minor' }]]);
      await sleep(200);
      expect(collect).toHaveBeenCalledTimes(2);
    } finally {
      stop();
    }
  });

  it('stops listening and collecting when stopped', async () => {
    const collect = jest.fn();
    const listeners = server.listenerCount('request');
    trimYoungGenerationWhenIdle(server, collect, 60)();
    expect(server.listenerCount('request')).toBe(listeners);
    await get();
    await sleep(200);
    expect(collect).not.toHaveBeenCalled();
  });

  it('does nothing without V8’s gc (Node without --expose-gc)', () => {
    const listeners = server.listenerCount('request');
    trimYoungGenerationWhenIdle(server, undefined, 60);
    expect(server.listenerCount('request')).toBe(listeners);
  });
});

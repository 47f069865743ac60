import { ConfigError, loadConfig } from '../../src/config';
import { parseLsn } from '../../src/db/read-router';

const base = { DATABASE_URL: 'postgres://unused@localhost/unused' };

describe('DATABASE_REPLICA_URLS', () => {
  it('is no replica unless set; a comma-separated list otherwise, blanks ignored', () => {
    expect(loadConfig(base).replicas).toEqual({ urls: [], maxLagMs: 3000, checkEveryMs: 500 });
    expect(loadConfig({ ...base, DATABASE_REPLICA_URLS: '' }).replicas.urls).toEqual([]);
    const urls = loadConfig({ ...base, DATABASE_REPLICA_URLS: ' postgres://r1:5432/m , postgresql://r2/m,' }).replicas.urls;
    expect(urls).toEqual(['postgres://r1:5432/m', 'postgresql://r2/m']);
  });

  it('refuses an entry that is not a postgres URL, naming the variable and the entry', () => {
    const load = () => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://r1/m,mysql://r2/m' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/DATABASE_REPLICA_URLS.*mysql:\/\/r2\/m/);
  });

  it('takes the lag bound and check interval in milliseconds', () => {
    const { replicas } = loadConfig({ ...base, DATABASE_REPLICA_MAX_LAG_MS: '10000', DATABASE_REPLICA_CHECK_MS: '250' });
    expect(replicas).toMatchObject({ maxLagMs: 10_000, checkEveryMs: 250 });
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_CHECK_MS: '0' })).toThrow(/DATABASE_REPLICA_CHECK_MS/);
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_MAX_LAG_MS: '-1' })).toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
  });
});

describe('parseLsn', () => {
  it('orders WAL positions as PostgreSQL does, across the 32-bit boundary', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });
});

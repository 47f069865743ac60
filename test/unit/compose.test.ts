import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import WORKER_NODE_FLAGS from '../../worker/node-flags.json';
import { readCompose, ROOT, type ComposeService } from '../support/compose';

// No Docker engine runs here or in CI, so docker-compose.yml is checked as data: against the
// Compose Specification's own JSON schema (vendored, see test/support/compose-spec/README.md),
// then for the shape docs/operations.md describes. The same processes run natively in
// test/system/replicas.test.ts (two APIs behind a round-robin proxy, two workers).

const compose = readCompose();
const services = compose.services;
const names = Object.keys(services);
const production = names.filter((n) => services[n]!.profiles?.includes('production'));
const byDefault = names.filter((n) => !services[n]!.profiles);

/**
 * The schema is draft-07; it names the meta-schema by its https address, which Ajv (knowing
 * draft-07 under http) does not resolve, so that one reference is left out. Formats (durations,
 * ports) are Compose's own and not checked; the structure and every key are.
 */
function composeValidator() {
  const { $schema: _metaSchema, ...schema } = JSON.parse(
    readFileSync(path.join(ROOT, 'test/support/compose-spec/compose-spec.json'), 'utf8'),
  );
  return new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
}

test('docker-compose.yml is valid against the Compose Specification schema', () => {
  const validate = composeValidator();
  expect(validate(compose) ? [] : validate.errors).toEqual([]);
});

test('the schema check has teeth: an unknown key and a wrongly typed value are refused', () => {
  const validate = composeValidator();
  expect(validate({ services: { api: { image: 'x', replicas: 2 } } })).toBe(false);
  expect(validate({ services: { api: { image: 'x', depends_on: { db: { condition: 'sometimes' } } } } })).toBe(false);
  expect(validate({ services: { api: { image: 'x', profiles: 'production' } } })).toBe(false);
});

describe('the default setup (no profile) is the development one', () => {
  it('runs the dev server, one API and one worker, and none of the production services', () => {
    expect(byDefault.sort()).toEqual(['api', 'migrate', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    expect(services.temporal!.command?.slice(0, 2)).toEqual(['server', 'start-dev']);
    for (const name of ['api', 'worker']) expect(services[name]!.deploy?.replicas ?? 1).toBe(1);
  });
});

describe('the production profile', () => {
  const service = (name: string): ComposeService => {
    expect(production).toContain(name);
    return services[name]!;
  };

  it('depends only on its own services and the shared PostgreSQL, so naming prod-proxy starts all of it and nothing of the default', () => {
    for (const name of production) {
      for (const dep of Object.keys(services[name]!.depends_on ?? {})) expect([...production, 'postgres']).toContain(dep);
    }
    // Everything in the profile is reachable from prod-proxy through depends_on.
    const reached = new Set<string>();
    const visit = (name: string) => {
      if (reached.has(name)) return;
      reached.add(name);
      for (const dep of Object.keys(services[name]!.depends_on ?? {})) visit(dep);
    };
    visit('prod-proxy');
    expect([...production].sort()).toEqual([...reached].filter((n) => n !== 'postgres').sort());
  });

  it('runs Temporal on PostgreSQL, its schema set up by admin-tools before the server starts', () => {
    const server = service('prod-temporal');
    expect(server.image).toMatch(/^temporalio\/server:/);
    expect(server.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(server.depends_on).toEqual({ 'prod-temporal-schema': { condition: 'service_completed_successfully' } });
    const schema = service('prod-temporal-schema');
    expect(schema.image).toMatch(/^temporalio\/admin-tools:/);
    const script = schema.command!.join('\n');
    for (const db of ['temporal', 'temporal_visibility']) {
      expect(script).toContain(
        `--db ${db} update-schema -d /etc/temporal/schema/postgresql/v12/${db === 'temporal' ? 'temporal' : 'visibility'}/versioned`,
      );
    }
    const setup = service('prod-temporal-setup');
    expect(setup.image).toMatch(/^temporalio\/admin-tools:/);
    expect(setup.command!.join('\n')).toContain(
      'temporal operator search-attribute create --namespace default --name $$name --type Keyword',
    );
  });

  it('runs the standalone Web UI against that server, decrypting through the codec endpoint the proxy publishes', () => {
    const ui = service('prod-temporal-ui');
    expect(ui.image).toMatch(/^temporalio\/ui:/);
    expect(ui.environment).toMatchObject({ TEMPORAL_ADDRESS: 'prod-temporal:7233', TEMPORAL_CODEC_ENDPOINT: 'http://localhost:8234' });
    expect(service('prod-proxy').ports).toEqual(expect.arrayContaining(['127.0.0.1:8234:8234', '127.0.0.1:8080:8080']));
    const worker = service('prod-worker');
    expect(worker.environment!.CODEC_CORS_ORIGINS!.split(',')).toContain('http://localhost:8080');
    expect(worker.environment).toMatchObject({ CODEC_HOST: '0.0.0.0' });
  });

  it('runs two API and two worker replicas of the compiled image, none publishing a port', () => {
    const commands = {
      'prod-api': ['node', ...API_NODE_FLAGS, 'dist/src/main.js'],
      'prod-worker': ['node', ...WORKER_NODE_FLAGS, 'dist/worker/main.js'],
      'prod-migrate': ['node', 'dist/scripts/migrate.js'],
    };
    for (const [name, command] of Object.entries(commands)) {
      const s = service(name);
      expect(s.build).toBe('.');
      expect(s.command).toEqual(command);
      expect(s.ports).toBeUndefined();
      expect(s.environment).toMatchObject({ NODE_ENV: 'production', TEMPORAL_ADDRESS: 'prod-temporal:7233' });
      expect(s.environment!.TEMPORAL_PAYLOAD_KEYS).toMatch(/^\$\{TEMPORAL_PAYLOAD_KEYS:\?/);
    }
    expect(service('prod-api').deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(service('prod-worker').deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(existsSync(path.join(ROOT, 'Dockerfile'))).toBe(true);
  });

  it('puts nginx in front of the API replicas, round robin, with its configuration from the repository', () => {
    const proxy = service('prod-proxy');
    expect(proxy.image).toMatch(/^nginx:/);
    expect(proxy.ports).toContain('3000:80');
    const mount = proxy.volumes!.find((v) => v.endsWith(':/etc/nginx/nginx.conf:ro'))!;
    const conf = readFileSync(path.join(ROOT, mount.split(':')[0]!), 'utf8');
    // One upstream per published service, each naming a service of the profile on its port.
    const upstreams = Object.fromEntries(
      [...conf.matchAll(/upstream (\w+) \{[^}]*?server ([\w-]+):(\d+) resolve;/g)].map((m) => [m[1], `${m[2]}:${m[3]}`]),
    );
    expect(upstreams).toEqual({ api: 'prod-api:3000', codec: 'prod-worker:8234', temporal_ui: 'prod-temporal-ui:8080' });
    // Round robin is nginx's default balancing; no other method is configured.
    expect(conf).not.toMatch(/\b(ip_hash|least_conn|hash|random)\b/);
    expect(conf).toMatch(/listen 80;\s+location \/ \{\s+proxy_pass http:\/\/api;/);
  });
});

describe('every API process runs with the V8 flags of src/api-node-flags.json', () => {
  // The flags are process arguments, so each way of starting the API repeats them; this keeps
  // those copies equal. scripts/start.mjs reads the file itself.
  it('in the image, in both compose profiles and in npm start', () => {
    expect(API_NODE_FLAGS.length).toBeGreaterThan(0);
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))![1]!;
    expect(JSON.parse(cmd)).toEqual(['node', ...API_NODE_FLAGS, 'dist/src/main.js']);
    for (const name of ['api', 'prod-api']) expect(services[name]!.command).toEqual(['node', ...API_NODE_FLAGS, 'dist/src/main.js']);
    expect(readFileSync(path.join(ROOT, 'scripts/start.mjs'), 'utf8')).toContain("'../src/api-node-flags.json'");
  });

  it("are flags this node accepts, as are the worker's", () => {
    for (const flags of [API_NODE_FLAGS, WORKER_NODE_FLAGS]) {
      const run = spawnSync(process.execPath, [...flags, '-e', 'process.exit(0)'], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
    // An unknown flag fails the same way, so the check above can fail.
    expect(spawnSync(process.execPath, ['--no-such-v8-flag-at-all', '-e', '0'], { encoding: 'utf8' }).status).not.toBe(0);
  });
});

describe('every compiled worker process runs with the V8 flags of worker/node-flags.json', () => {
  // From source (npm start) the worker keeps V8's defaults: it bundles the workflows with webpack at start.
  it('in both compose profiles and in the throw-away stack of scripts/local-stack.ts', () => {
    expect(WORKER_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const name of ['worker', 'prod-worker'])
      expect(services[name]!.command).toEqual(['node', ...WORKER_NODE_FLAGS, 'dist/worker/main.js']);
    expect(readFileSync(path.join(ROOT, 'scripts/local-stack.ts'), 'utf8')).toContain("from '../worker/node-flags.json'");
  });
});

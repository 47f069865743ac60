import { once } from 'node:events';
import net from 'node:net';
import { startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';

let api: TestApi;
let urns: string[];
beforeAll(async () => {
  api = await startTestApi();
  const { items } = await seedCatalog(api.database.db, { names: Array.from({ length: 200 }, (_, i) => `Card ${i}`) });
  urns = items.map((i) => i.urn);
});
afterAll(() => api.close());

const lookup = (body: unknown) => api.http.post('/search/lookup/bulk').send(body as object);

describe('POST /search/lookup/bulk', () => {
  it('answers 200 URNs with the items in request order', async () => {
    const asked = [...urns].reverse();
    const res = await lookup({ urns: asked }).expect(200);
    expect(res.body.map((i: { urn: string }) => i.urn)).toEqual(asked);
    expect(res.headers['x-unprocessed-count']).toBe('0');
    expect(res.headers).not.toHaveProperty('x-unprocessed-urns');
    expect(res.body[0]).toMatchObject({ type: 'card', game: 'Pokémon', price: null, available: 0 });
  });

  it('refuses 201 URNs and an empty list', async () => {
    const tooMany = await lookup({ urns: [...urns, urns[0]] }).expect(400);
    expect(tooMany.body.errors).toEqual([expect.objectContaining({ field: 'urns', message: expect.stringMatching(/200/) })]);
    await lookup({ urns: [] }).expect(400);
    await lookup({}).expect(400);
  });

  it('refuses URNs ending in "/", naming every offending entry', async () => {
    const res = await lookup({ urns: [urns[0], 'pokemon/base/', urns[1], 'pokemon/'] }).expect(400);
    expect(res.body.type).toBe('/problems/validation-failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['urns.1', 'urns.3']);
    expect(res.body.errors[0].message).toContain('"pokemon/base/"');
  });

  it('refuses URNs with characters a URN never has, or longer than 100 characters', async () => {
    const res = await lookup({ urns: ['pokemon/base/base1/4 ', 'pokémon/base', 'a,b', 'x'.repeat(101), '/pokemon'] }).expect(400);
    const fields = new Set(res.body.errors.map((e: { field: string }) => e.field));
    expect([...fields]).toEqual(['urns.0', 'urns.1', 'urns.2', 'urns.3', 'urns.4']);
  });

  it('names the URNs it did not find in X-Unprocessed-Urns; found ones keep their order, repeats are answered once', async () => {
    const [a, b] = [urns[0]!, urns[2]!];
    const res = await lookup({ urns: [b, 'pokemon/none/x.y/1', a, b, 'pokemon/none/z/2'] }).expect(200);
    expect(res.body.map((i: { urn: string }) => i.urn)).toEqual([b, a]);
    expect(res.headers['x-unprocessed-count']).toBe('2');
    expect(String(res.headers['x-unprocessed-urns']).split(',')).toEqual(['pokemon/none/x.y/1', 'pokemon/none/z/2']);
  });

  it('keeps the bytes of answers a client has not read yet while other answers are sent', async () => {
    // Answers are joined in reused buffers (src/http/answer-buffers.ts). Sixty lookups, each in
    // its own order, pipelined on one connection whose client reads nothing until the end: the
    // loopback's buffers take about half of their answers, the rest wait in the server. A buffer
    // given back before its answer was written would carry another answer's order by then.
    const reversed = [...urns].reverse();
    const asked = Array.from({ length: 60 }, (_, n) => [...reversed.slice(n), ...reversed.slice(0, n)]);
    const slow = await pipelinedLookups(asked);
    for (let n = 0; n < 20; n += 1) {
      const order = [...urns.slice(n), ...urns.slice(0, n)];
      const res = await lookup({ urns: order }).expect(200);
      expect(res.body.map((i: { urn: string }) => i.urn)).toEqual(order);
    }
    const bodies = await slow.readAll();
    expect(bodies.map((body) => (JSON.parse(body) as Array<{ urn: string }>).map((i) => i.urn))).toEqual(asked);
  });
});

/**
 * A bulk lookup for each list of URNs, pipelined on one connection (sent in one write), of which
 * nothing is read until `readAll`; resolves once the first bytes of an answer have arrived.
 */
async function pipelinedLookups(lists: string[][]): Promise<{ readAll: () => Promise<string[]> }> {
  const { hostname, port } = new URL(api.baseUrl);
  const requests = lists.map((urns) => {
    const body = JSON.stringify({ urns });
    return `POST /search/lookup/bulk HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  });
  const socket = net.connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(requests.join(''));
  await once(socket, 'readable');
  return {
    readAll: async () => {
      const bodies: string[] = [];
      let received = Buffer.alloc(0);
      for await (const chunk of socket) {
        received = Buffer.concat([received, chunk as Buffer]);
        for (;;) {
          const headEnd = received.indexOf('\r\n\r\n');
          if (headEnd < 0) break;
          const head = received.subarray(0, headEnd).toString('latin1');
          expect(head).toMatch(/^HTTP\/1\.1 200 /);
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)![1]);
          if (received.length < headEnd + 4 + length) break;
          bodies.push(received.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'));
          received = received.subarray(headEnd + 4 + length);
        }
        if (bodies.length === lists.length) break;
      }
      socket.destroy();
      return bodies;
    },
  };
}

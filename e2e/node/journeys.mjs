// Journeys of the pdpp-mcp e2e suite, driven by the official TypeScript MCP
// SDK client over Streamable HTTP (MCP_URL + MCP_BEARER) or stdio
// (MCP_STDIO_COMMAND + MCP_STDIO_ARGS, a JSON array). Run by e2e/tssdk_test.go, which passes
// the endpoint, bearer and dataset facts in the environment and checks the
// JSON summary this script prints on stdout (one line).
//
// Every handle a journey passes on is read from content[0].text, never
// from structuredContent. Every tools/call goes through client.callTool,
// so the SDK validates structuredContent against the tool's outputSchema
// (error results included) and throws when it does not match: a journey
// that throws fails.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`missing env ${k}`);
  return v;
};
const stdio = Boolean(process.env.MCP_STDIO_COMMAND);
const cfg = {
  url: stdio ? null : env('MCP_URL'),
  bearer: stdio ? null : env('MCP_BEARER'),
  sharedRecordID: env('SHARED_RECORD_ID'),
  sharedSubject: env('SHARED_SUBJECT'),
  workConnection: env('WORK_CONNECTION_ID'),
  longTerm: env('LONG_BODY_TERM'),
  longTermOffset: Number(env('LONG_BODY_TERM_OFFSET')),
  longLength: Number(env('LONG_BODY_LENGTH')),
};

const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)),
).version;

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
function match(re, text) {
  const m = re.exec(text);
  check(m, `text has no ${re}:\n${text}`);
  return m[1];
}
const textOf = (r) => (r.content?.[0]?.type === 'text' ? r.content[0].text : '');

const client = new Client({ name: 'pdpp-mcp-e2e-ts', version: '1' });
const transport = stdio
  ? new StdioClientTransport({
      command: env('MCP_STDIO_COMMAND'),
      args: JSON.parse(env('MCP_STDIO_ARGS')),
      // Only what the adapter needs: owner credentials in the parent's
      // environment would (rightly) make it refuse to start.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stderr: 'ignore',
    })
  : new StreamableHTTPClientTransport(new URL(cfg.url), {
      requestInit: { headers: { Authorization: `Bearer ${cfg.bearer}` } },
    });

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: textOf(r), raw: r };
}
async function ok(name, args) {
  const r = await call(name, args);
  check(!r.isError, `${name}(${JSON.stringify(args)}) isError:\n${r.text}`);
  return r;
}

const journeys = {
  // schema → schema(stream) → query_records → page 2 by next_cursor.
  async schema_query_paging() {
    const index = await ok('schema', {});
    const streams = match(/^connector gmail .*\bstreams\(\d+\)=(\S+)$/m, index.text).split('|');
    check(streams.includes('messages'), `gmail streams ${streams} lack messages`);
    const detail = await ok('schema', { stream: 'messages' });
    const conn = match(/^source \d+\/\d+ connector_key=gmail .*\n connection_id: (cin_[0-9a-f]+)\(/m, detail.text);
    const args = { stream: 'messages', connection_id: conn, limit: 3 };
    const p1 = await ok('query_records', args);
    const cursor = match(/\bnext_cursor=(\S+)/, p1.text);
    const p2 = await ok('query_records', { ...args, cursor });
    const ids = (t) => [...t.matchAll(/^\d+\. (cin_[0-9a-f]+\/[a-z_]+:\S+) /gm)].map((m) => m[1]);
    const [a, b] = [ids(p1.text), ids(p2.text)];
    check(a.length > 0 && b.length > 0, 'pages list no fetch ids');
    check(b.every((id) => !a.includes(id)), `page 2 repeats page 1: ${a} / ${b}`);
    check([...a, ...b].every((id) => id.startsWith(`${conn}/messages:`)), 'a record from another source');
  },
  // count, then count grouped; buckets add up to the total.
  async aggregate() {
    const base = { stream: 'messages', metric: 'count', connection_id: cfg.workConnection };
    const total = await ok('aggregate', base);
    const n = Number(match(/^aggregate count\(messages\)(?: connection_id=\S+)? = (\d+) over \d+ records$/m, total.text));
    check(n > 0, 'count is 0');
    const grouped = await ok('aggregate', { ...base, group_by: 'is_seen' });
    match(/^aggregate count\(messages\)(?: connection_id=\S+)? by is_seen: (\d+) buckets/m, grouped.text);
    const sum = [...grouped.text.matchAll(/^(?:true|false) = (\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    check(sum === n, `buckets add up to ${sum}, want ${n}`);
  },
  // ambiguous by bare id; search's first_fetch_id fetches it.
  async search_fetch() {
    const amb = await call('fetch', { id: `messages:${cfg.sharedRecordID}` });
    check(amb.isError && amb.text.includes('"code":"ambiguous_connection"'), `want ambiguous_connection, got:\n${amb.text}`);
    const hits = await ok('search', { q: cfg.sharedSubject, streams: ['messages'], limit: 5 });
    const id = match(/\bfirst_fetch_id=(\S+)/, hits.text);
    check(id.endsWith(`/messages:${cfg.sharedRecordID}`), `first_fetch_id=${id} is not the shared record`);
    const doc = JSON.parse((await ok('fetch', { id })).text);
    check(doc.id === id && doc.text.includes('Sending this to both of your addresses'), 'fetch returned another document');
  },
  // search the long body's term → read around it → follow next to the end.
  async evidence() {
    const hits = await ok('search', { q: cfg.longTerm });
    const id = match(/\bfirst_fetch_id=(\S+)/, hits.text);
    const field = match(/^1\. \S+ "(?:[^"\\]|\\.)*"(?: \([^)]*\))? ([a-z_.]+): /m, hits.text);
    const split = (t) => {
      const i = t.indexOf('\n');
      return [JSON.parse(t.slice(0, i)), t.slice(i + 1)];
    };
    let [h, body] = split((await ok('read_record_field', { id, field_path: field, q: cfg.longTerm })).text);
    check(h.match_start_chars === cfg.longTermOffset, `match_start_chars=${h.match_start_chars}`);
    check(body.slice(cfg.longTermOffset - h.start_chars).startsWith(cfg.longTerm), 'term not where the dataset puts it');
    let end = h.end_chars;
    let pages = 1;
    while (h.next) {
      check(++pages <= 20, 'continuation does not advance');
      [h, body] = split((await ok(h.next.tool, h.next.args)).text);
      check(h.start_chars === end && body.length === h.end_chars - h.start_chars, `window [${h.start_chars},${h.end_chars}) after ${end}`);
      end = h.end_chars;
    }
    check(end === cfg.longLength && h.total_chars === cfg.longLength, `ended at ${end} of ${h.total_chars}`);
    check(pages >= 3, `only ${pages} windows`);
  },
};

// One error of each family; each must come back as an isError result that
// callTool accepts (it throws on an outputSchema violation).
const errorCalls = {
  input_validation: ['query_records', { stream: 'messages', limit: 500 }],
  adapter: ['fetch', { id: '../x' }],
  rs_4xx: ['query_records', { stream: 'messages', connection_id: cfg.workConnection, filter: { is_seen: true } }],
};

const summary = { sdk_version: sdkVersion, node_version: process.version, journeys: {}, errors: {} };
try {
  await client.connect(transport);
  summary.protocol = stdio ? 'stdio' : transport.protocolVersion ?? null;
  await client.listTools(); // caches the outputSchemas callTool validates against
  for (const [name, run] of Object.entries(journeys)) {
    try {
      await run();
      summary.journeys[name] = { ok: true };
    } catch (e) {
      summary.journeys[name] = { ok: false, error: String(e?.stack ?? e) };
    }
  }
  for (const [family, [tool, args]] of Object.entries(errorCalls)) {
    try {
      const r = await call(tool, args);
      summary.errors[family] = {
        accepted: true,
        is_error: r.isError,
        text: r.text,
        structured: r.raw.structuredContent ?? null,
      };
    } catch (e) {
      summary.errors[family] = { accepted: false, error: String(e?.message ?? e) };
    }
  }
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(summary) + '\n');

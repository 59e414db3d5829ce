// Sign-in journeys of the pdpp-mcp e2e suite with the official TypeScript
// MCP SDK client's OAuth support (OAuthClientProvider + auth()), run by
// e2e/oauth_test.go. No token is given to this script: the client finds
// the authorization server from the adapter's 401 challenge (RFC 9728
// metadata, RFC 8414), registers itself (RFC 7591), authorizes with code +
// PKCE S256 and exchanges the code. The mock RS approves without a person,
// so the provider plays the browser itself: it requests the authorize URL
// and reads the code off the redirect, as a browser landing on the
// redirect_uri would.
//
// SCENARIO=journey (MCP_URL; tokens live TOKEN_TTL_MS): sign in, read,
// let the access token expire, read again (the SDK refreshes on the 401),
// then revoke the refresh token (RFC 7009), let the token expire, and read
// once more, which must fail without data.
// SCENARIO=deny (MCP_URL of an adapter whose authorization server denies):
// sign-in must end in access_denied, never in data.
// SCENARIO=both (MCP_URL of `demo --real-auth`, through its sign-in front):
// sign in, read Gmail records of both connections, let the token expire
// (403 grant_expired at the RS, 401 at the adapter) and read them again.
// SCENARIO=package (MCP_URL of an adapter without the front over the same
// RS): the generic sign-in's package token must end in the adapter's 401
// explanation, never in data.
// SCENARIO=ri (MCP_URL of `serve --sign-in-details` over the reference
// RS): sign in, read both connections, page a search and one
// connection's records, refresh explicitly (the reference AS's tokens live
// 600 s), continue both with the refreshed token, try the cursor under OTHER_TOKEN (a token of another
// grant), reuse the spent refresh token, and read once more.
// APPROVER_URL, when set, is the owner: the browser step hands it the
// authorization URL and it answers the redirect_uri URL it approved to
// (the reference AS asks a person to consent; the mock approves alone).
//
// Prints one JSON line: counts of what went over the wire and each step's
// outcome, which the Go test checks.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, auth } from '@modelcontextprotocol/sdk/client/auth.js';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`missing env ${k}`);
  return v;
};
const mcpURL = new URL(env('MCP_URL'));
const scenario = env('SCENARIO');
// The record every read fetches, by the full id search prints
// (connection/stream:key), and the subject its text must carry.
const recordID = `${env('WORK_CONNECTION_ID')}/messages:${env('SHARED_RECORD_ID')}`;
const subject = env('SHARED_SUBJECT');
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)),
).version;

// wire counts every request the SDK sends, by what it is for.
// mcp_statuses lists every /mcp answer's status in order;
// challenges the error and error_description of each 401's WWW-Authenticate.
const wire = { mcp_401: 0, mcp_ok: 0, register: 0, code_exchange: 0, refresh_ok: 0, refresh_failed: 0,
  mcp_statuses: [], challenges: [], authorize_hops: [] };
const challengeParam = (h, name) => (h.match(new RegExp(`${name}="([^"]*)"`)) ?? [])[1] ?? '';
async function countingFetch(input, init) {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const res = await fetch(input, init);
  const body = init?.body ? String(init.body) : '';
  if (url.pathname === mcpURL.pathname && url.origin === mcpURL.origin) {
    wire.mcp_statuses.push(res.status);
    if (res.status === 401) {
      wire.mcp_401++;
      const h = res.headers.get('www-authenticate') ?? '';
      wire.challenges.push({ error: challengeParam(h, 'error'), error_description: challengeParam(h, 'error_description') });
    } else if (res.ok) wire.mcp_ok++;
  } else if (url.pathname.endsWith('/register')) {
    wire.register++;
  } else if (url.pathname.endsWith('/token')) {
    const grant = new URLSearchParams(body).get('grant_type');
    if (grant === 'authorization_code') wire.code_exchange++;
    if (grant === 'refresh_token') wire[res.ok ? 'refresh_ok' : 'refresh_failed']++;
    if (!res.ok) wire.token_error = (await res.clone().json().catch(() => ({}))).error ?? `HTTP ${res.status}`;
  }
  return res;
}

// MemoryProvider is an OAuthClientProvider keeping everything in memory;
// redirectToAuthorization only remembers the URL for the "browser".
class MemoryProvider {
  constructor() {
    this.redirectUrl = 'http://127.0.0.1:9/oauth/callback';
    this.clientMetadata = {
      client_name: 'pdpp-mcp e2e (TypeScript SDK)',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    this._state = randomBytes(16).toString('hex');
    this.redirects = [];
    this.invalidated = [];
  }
  state() { return this._state; }
  clientInformation() { return this._client; }
  saveClientInformation(c) { this._client = c; }
  tokens() { return this._tokens; }
  saveTokens(t) { this._tokens = t; }
  redirectToAuthorization(url) { this.redirects.push(url); }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  saveDiscoveryState(s) { this._discovery = s; }
  discoveryState() { return this._discovery; }
  invalidateCredentials(scope) {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'tokens') this._tokens = undefined;
    if (scope === 'all' || scope === 'client') this._client = undefined;
  }
}

// browse requests the authorize URL as a browser would and returns the
// code from the redirect to redirect_uri, or throws the OAuth error the
// authorization server redirected with.
// The adapter's sign-in front adds one hop: its authorize endpoint
// redirects to the RS's, which redirects to redirect_uri.
async function browse(provider, url) {
  let loc = String(url);
  if (process.env.APPROVER_URL) {
    const res = await fetch(process.env.APPROVER_URL, { method: 'POST', body: loc });
    const answer = await res.json();
    if (!res.ok) throw new Error(`authorization failed: the owner could not approve: ${answer.error}`);
    wire.authorize_hops.push(...answer.hops);
    loc = answer.location;
  }
  for (let hop = 0; hop < 4 && !loc.startsWith(provider.redirectUrl); hop++) {
    const res = await fetch(loc, { redirect: 'manual' });
    const next = res.headers.get('location');
    if (res.status !== 302 || !next) throw new Error(`authorize answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
    wire.authorize_hops.push(new URL(next, loc).origin);
    loc = new URL(next, loc).href;
  }
  const back = new URL(loc);
  if (!loc.startsWith(provider.redirectUrl)) throw new Error(`redirected to ${back.origin}${back.pathname}, not the redirect_uri`);
  if (back.searchParams.get('state') !== provider.state()) throw new Error('state mismatch on the redirect');
  const err = back.searchParams.get('error');
  if (err) throw new Error(`authorization failed: ${err}: ${back.searchParams.get('error_description') ?? ''}`);
  const code = back.searchParams.get('code');
  if (!code) throw new Error('redirect carries neither code nor error');
  return code;
}

const newTransport = (provider) => new StreamableHTTPClientTransport(mcpURL, { authProvider: provider, fetch: countingFetch });

// signIn connects; the first attempt meets the 401 and the SDK asks for
// the browser step, after which finishAuth exchanges the code and a fresh
// connection succeeds.
async function signIn(provider) {
  let client = new Client({ name: 'pdpp-mcp-e2e-oauth', version: '1' });
  try {
    await client.connect(newTransport(provider));
    throw new Error('connected without signing in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  const transport = newTransport(provider);
  await transport.finishAuth(await browse(provider, provider.redirects.at(-1)));
  client = new Client({ name: 'pdpp-mcp-e2e-oauth', version: '1' });
  await client.connect(newTransport(provider));
  await client.listTools();
  return client;
}

const textOf = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
async function read(client) {
  const r = await client.callTool({ name: 'fetch', arguments: { id: recordID } });
  if (r.isError) throw new Error(`fetch isError: ${textOf(r)}`);
  return textOf(r);
}
// attempt runs fn and reports its outcome without throwing.
async function attempt(fn) {
  try {
    const text = await fn();
    return { ok: true, has_record: text.includes(subject) };
  } catch (e) {
    const error = `${e.constructor.name}: ${e.message}`;
    return { ok: false, error, has_record: error.includes(subject) };
  }
}
// readBoth reads Gmail messages across the grant (no connection_id): the
// page must carry records of both connections.
const workID = env('WORK_CONNECTION_ID');
const personalID = process.env.PERSONAL_CONNECTION_ID ?? '';
async function readBoth(client) {
  const r = await client.callTool({ name: 'query_records', arguments: { stream: 'messages', limit: 10 } });
  if (r.isError) throw new Error(`query_records isError: ${textOf(r)}`);
  return textOf(r);
}
async function attemptBoth(fn) {
  try {
    const text = await fn();
    return { ok: true, has_work: text.includes(workID), has_personal: personalID !== '' && text.includes(personalID) };
  } catch (e) {
    return { ok: false, error: `${e.constructor.name}: ${e.message}` };
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const out = { sdk_version: sdkVersion, node_version: process.version, scenario, steps: {} };
const provider = new MemoryProvider();
if (scenario === 'journey') {
  const ttl = Number(env('TOKEN_TTL_MS'));
  const client = await signIn(provider);
  const first = provider.tokens();
  out.steps.signed_in = { ok: true, registered_client: Boolean(provider.clientInformation()?.client_id), has_refresh_token: Boolean(first.refresh_token) };
  out.steps.read = await attempt(() => read(client));
  await sleep(ttl + 1500);
  out.steps.read_after_expiry = await attempt(() => read(client));
  out.steps.read_after_expiry.token_changed = provider.tokens()?.access_token !== first.access_token;
  // The owner revokes the app's sign-in: the refresh token's family ends.
  const asm = provider.discoveryState()?.authorizationServerMetadata;
  const rev = await fetch(asm.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: provider.tokens().refresh_token, token_type_hint: 'refresh_token', client_id: provider.clientInformation().client_id }),
  });
  out.steps.revoke = { ok: rev.ok, status: rev.status };
  await sleep(ttl + 1500);
  const redirectsBefore = provider.redirects.length;
  out.steps.read_after_revocation = await attempt(() => read(client));
  out.steps.read_after_revocation.asked_to_sign_in_again = provider.redirects.length > redirectsBefore;
  await client.close();
} else if (scenario === 'deny') {
  out.steps.sign_in = await attempt(async () => {
    const client = await signIn(provider);
    return read(client);
  });
} else if (scenario === 'both') {
  // The demo in the real AS's posture behind the sign-in front: one
  // sign-in, then a read whose records come from both Gmail connections,
  // before and after the access token expires.
  const ttl = Number(env('TOKEN_TTL_MS'));
  const client = await signIn(provider);
  const first = provider.tokens();
  out.steps.signed_in = { ok: true, registered_client: Boolean(provider.clientInformation()?.client_id), has_refresh_token: Boolean(first.refresh_token) };
  out.steps.read_both = await attemptBoth(() => readBoth(client));
  await sleep(ttl + 1500);
  out.steps.read_both_after_expiry = await attemptBoth(() => readBoth(client));
  out.steps.read_both_after_expiry.token_changed = provider.tokens()?.access_token !== first.access_token;
  await client.close();
} else if (scenario === 'package') {
  // An adapter without the sign-in front over the real AS's posture: the
  // generic sign-in yields a package token the RS refuses; the client must
  // end in a 401 that says so, never data and never 503.
  out.steps.sign_in = await attempt(async () => {
    const client = await signIn(provider);
    return readBoth(client);
  });
  out.steps.sign_in.token_issued = Boolean(provider.tokens()?.access_token);
} else if (scenario === 'ri') {
  const client = await signIn(provider);
  const first = provider.tokens();
  out.steps.signed_in = { ok: true, registered_client: Boolean(provider.clientInformation()?.client_id), has_refresh_token: Boolean(first.refresh_token) };
  out.steps.read_both = await attemptBoth(() => readBoth(client));
  // A lexical search of two hits a page; its cursor outlives the refresh.
  const search = (c, args) => c.callTool({ name: 'search', arguments: args });
  const hitIDs = (text) => [...text.matchAll(/^\d+\. (cin_[0-9a-f]+\/[a-z_]+:\S+) /gm)].map((m) => m[1]);
  const nextCursor = (text) => (text.match(/\bnext_cursor=(\S+)/) ?? [])[1];
  const page1 = textOf(await search(client, { q: 'kayak itinerary', mode: 'lexical', limit: 2 }));
  const cursor = nextCursor(page1);
  out.hits = [hitIDs(page1)];
  // A page of one connection's records; its cursor outlives the refresh too.
  const records = (args) => client.callTool({ name: 'query_records', arguments: args });
  const rec1 = textOf(await records({ stream: 'messages', connection_id: workID, limit: 5 }));
  const recCursor = nextCursor(rec1);
  out.records = [hitIDs(rec1)];
  // The host refreshes as it would on its own (auth() with a refresh token
  // in store refreshes it).
  out.steps.refresh = { ok: (await auth(provider, { serverUrl: mcpURL, fetchFn: countingFetch })) === 'AUTHORIZED' };
  out.steps.refresh.token_changed = provider.tokens()?.access_token !== first.access_token;
  out.steps.search_after_refresh = await attempt(async () => {
    if (!cursor) throw new Error(`no next_cursor on the first search page: ${page1.slice(0, 600)}`);
    let text = '';
    for (let c = cursor, n = 0; c && n < 20; n++) {
      const r = await search(client, { cursor: c });
      text = textOf(r);
      if (r.isError) throw new Error(`search isError: ${text}`);
      out.hits.push(hitIDs(text));
      c = nextCursor(text);
    }
    return text;
  });
  out.steps.records_after_refresh = await attempt(async () => {
    if (!recCursor) throw new Error(`no next_cursor on the first records page: ${rec1.slice(0, 600)}`);
    const r = await records({ stream: 'messages', connection_id: workID, limit: 5, cursor: recCursor });
    const text = textOf(r);
    if (r.isError) throw new Error(`query_records isError: ${text}`);
    out.records.push(hitIDs(text));
    return text;
  });
  // A token of another grant presents the same cursor.
  const other = new Client({ name: 'pdpp-mcp-e2e-other-grant', version: '1' });
  await other.connect(new StreamableHTTPClientTransport(mcpURL, { requestInit: { headers: { Authorization: `Bearer ${env('OTHER_TOKEN')}` } } }));
  const refusal = await search(other, { cursor });
  out.other_grant = { is_error: Boolean(refusal.isError), text: textOf(refusal) };
  await other.close();
  // The spent refresh token comes back: the AS treats it as stolen.
  const asm = provider.discoveryState()?.authorizationServerMetadata;
  const reuse = await fetch(asm.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: provider.clientInformation().client_id }),
  });
  out.steps.reuse = { ok: reuse.ok, status: reuse.status, error: (await reuse.json().catch(() => ({}))).error ?? '' };
  const redirectsBefore = provider.redirects.length;
  out.steps.read_after_reuse = await attemptBoth(() => readBoth(client));
  out.steps.read_after_reuse.asked_to_sign_in_again = provider.redirects.length > redirectsBefore;
  await client.close();
} else {
  throw new Error(`unknown SCENARIO ${scenario}`);
}
out.wire = wire;
out.redirects = provider.redirects.length;
out.invalidated = provider.invalidated;
console.log(JSON.stringify(out));

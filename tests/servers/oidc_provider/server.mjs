// oidc-provider (npm, a certified OpenID provider), configured as an MCP server's authorization
// server, for the third-party sign-in tests (tests/auth/test_third_party.py). Installed by
// install.py beside this file; nothing of the package is changed, only configured:
//
// - PKCE required (S256, the only method it offers), dynamic client registration (open, no
//   initial access token), revocation, resource indicators (RFC 8707: the resources are the
//   MCP servers' URLs; their access tokens are JWTs with that audience and `scope`), refresh
//   tokens for every client allowed the grant, rotated on every use; DPoP as it ships
//   (offered in its metadata; a token request with a proof gets DPoP-bound tokens);
// - scopes `openid offline_access mcp:read mcp:write`;
// - no login form: the interaction URL is answered here, and approves at once as user
//   `test-user` (login, then consent to what was asked), so a browser only follows redirects;
// - with --cimd, Client ID Metadata Documents (an experimental feature of the package) are
//   accepted, fetched from 127.0.0.1 too (the package refuses special-use addresses by
//   default); give NODE_EXTRA_CA_CERTS for a self-signed certificate.
//
// Everything is in memory (the package's development adapter), its signing key too (made at
// each start): a restart (same --port) forgets every client, grant and token, and its old
// JWTs no longer verify.
//
// Usage: node server.mjs --modules DIR --resource URL [--port N] [--ready-file PATH]
//                        [--record PATH] [--cimd]
//   --modules DIR     the node_modules folder holding oidc-provider
//   --resource URL    a protected MCP server (repeatable: the resource indicators accepted;
//                     the first is the default)
//   --ready-file PATH {"issuer": URL, "pid": N} is written there once listening
//   --record PATH     one JSON line per token, registration and revocation request: its
//                     route, status, parameters, the registration's request body and the
//                     response body (the test looks for what was issued and asked)
// Ends when its parent process goes away.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function parseArgs(argv) {
  const args = { port: 0, cimd: false, resource: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const name = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (name === 'cimd') args.cimd = true;
    else if (name === 'resource') args.resource.push(argv[++i]);
    else args[name] = argv[++i];
  }
  for (const required of ['modules', 'resource']) {
    if (!args[required]?.length) {
      console.error(`usage: node server.mjs --modules DIR --resource URL ... (--${required} is missing)`);
      process.exit(2);
    }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const entry = pathToFileURL(path.join(args.modules, 'oidc-provider', 'lib', 'index.js')).href;
const { default: Provider, errors } = await import(entry);

let handler = (req, res) => { res.statusCode = 503; res.end(); };
const server = http.createServer((req, res) => handler(req, res));
await new Promise((resolve) => server.listen(Number(args.port), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
const RESOURCE_SCOPES = 'mcp:read mcp:write';
// A signing key of this run only (the package's quick-start keys are the same at every start).
const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  claims: { openid: ['sub'] },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    // DPoP as the package ships it (enabled: listed in its metadata, a token request with
    // a proof gets DPoP-bound tokens, `cnf.jkt` in a JWT access token); whether a resource
    // takes them is the resource's business (tests/servers/jwt_resource_server.py --dpop).
    dPoP: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => args.resource[0],
      useGrantedResource: () => true,
      getResourceServerInfo(ctx, resourceIndicator) {
        if (!args.resource.includes(resourceIndicator)) throw new errors.InvalidTarget();
        return { scope: RESOURCE_SCOPES, audience: resourceIndicator, accessTokenTTL: 3600, accessTokenFormat: 'jwt' };
      },
    },
    ...(args.cimd ? { clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } } : {}),
  },
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: (ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  cookies: { keys: ['a test key, not a secret'] },
  // for --cimd: the test's document server is on 127.0.0.1, which the package's own
  // dispatcher refuses (a server-side request forgery guard): the standard fetch is used,
  // with 30 s instead of 2.5 s to answer (a loaded test machine)
  fetch: (url, options) => {
    const { dispatcher, signal, ...rest } = options;
    return fetch(url, { ...rest, signal: AbortSignal.timeout(30000) });
  },
});

// What the test needs to look for in mrtr's output: every token, code, verifier and secret
// that went through the token, registration and revocation endpoints.
provider.use(async (ctx, next) => {
  await next();
  const route = ctx.oidc?.route;
  if (args.record && ['token', 'registration', 'revocation'].includes(route)) {
    const params = {};
    for (const [key, value] of Object.entries(ctx.oidc.params ?? {})) if (value !== undefined) params[key] = value;
    const request = route === 'registration' ? ctx.oidc.body ?? null : null; // the client metadata sent
    const line = JSON.stringify({ route, status: ctx.status, params, request, body: ctx.body ?? null }) + '\n';
    fs.appendFileSync(args.record, line);
  }
});

// The interaction: approve at once, no form (login as test-user, then consent to all asked).
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  let result;
  if (prompt.name === 'login') {
    result = { login: { accountId: 'test-user' } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
handler = (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain');
      res.end(`interaction failed: ${err.message}`);
    });
    return;
  }
  callback(req, res);
};

if (args.readyFile) {
  fs.writeFileSync(`${args.readyFile}.tmp`, JSON.stringify({ issuer, pid: process.pid }));
  fs.renameSync(`${args.readyFile}.tmp`, args.readyFile);
}
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 1000);

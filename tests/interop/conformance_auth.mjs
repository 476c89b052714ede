// Preload for the MCP conformance suite (node --import): adds
// `Authorization: Bearer $CELLGATE_CONFORMANCE_KEY` to every HTTP request the
// suite sends to $CELLGATE_CONFORMANCE_URL's origin.
//
// Why: the suite's server scenarios cannot send headers of their own (no
// option, no environment variable: its SDK client transports are built with
// a bare URL), while cellgate answers 401 to anything without a tenant key.
// The suite sends requests three ways, and each is covered here:
//   - the global fetch (the SDK client transports and the raw checks) and
//   - undici's request() (dns-rebinding-protection) both go through undici's
//     global dispatcher, which is replaced by one that adds the header;
//   - node:http request() (the 2026-07-28 header-validation checks) is
//     wrapped.
// A request that already carries an Authorization header is left alone.
import http from 'node:http';
import { Agent, setGlobalDispatcher } from 'undici';

const key = process.env.CELLGATE_CONFORMANCE_KEY;
const target = process.env.CELLGATE_CONFORMANCE_URL;
if (!key || !target) {
  console.error('conformance_auth.mjs: CELLGATE_CONFORMANCE_KEY and CELLGATE_CONFORMANCE_URL must be set');
  process.exit(2);
}
const targetUrl = new URL(target);
const value = `Bearer ${key}`;

function isTargetOrigin(origin) {
  try {
    return new URL(String(origin)).origin === targetUrl.origin;
  } catch {
    return false;
  }
}

// undici accepts headers as a plain object, a flat [name, value, ...] array,
// an array of pairs or an iterable of pairs; return a copy with the header.
function withAuth(headers) {
  if (headers == null) return { authorization: value };
  if (Array.isArray(headers)) {
    const pairs = headers.length > 0 && Array.isArray(headers[0]);
    const names = pairs ? headers.map((p) => p[0])
      : headers.filter((_, i) => i % 2 === 0);
    if (names.some((n) => String(n).toLowerCase() === 'authorization')) return headers;
    return pairs ? [...headers, ['authorization', value]]
      : [...headers, 'authorization', value];
  }
  if (typeof headers[Symbol.iterator] === 'function') {
    return withAuth([...headers]);
  }
  if (Object.keys(headers).some((n) => n.toLowerCase() === 'authorization')) return headers;
  return { ...headers, authorization: value };
}

setGlobalDispatcher(new Agent().compose((dispatch) => (opts, handler) =>
  dispatch(isTargetOrigin(opts.origin) ? { ...opts, headers: withAuth(opts.headers) } : opts,
    handler)));

const httpRequest = http.request;
http.request = function requestWithAuth(...args) {
  // (options[, cb]) or (url[, options][, cb])
  const urlFirst = typeof args[0] === 'string' || args[0] instanceof URL;
  const opts = urlFirst ? (typeof args[1] === 'object' && args[1] ? args[1] : {}) : args[0];
  let origin;
  if (urlFirst) {
    origin = new URL(String(args[0])).origin;
  } else if (opts) {
    origin = `${opts.protocol || 'http:'}//${opts.hostname || opts.host || 'localhost'}` +
      (opts.port ? `:${opts.port}` : '');
  }
  if (opts && isTargetOrigin(origin)) {
    const patched = { ...opts, headers: withAuth(opts.headers) };
    if (urlFirst) {
      const rest = typeof args[1] === 'object' && args[1] ? args.slice(2) : args.slice(1);
      return httpRequest.call(this, args[0], patched, ...rest);
    }
    return httpRequest.call(this, patched, ...args.slice(1));
  }
  return httpRequest.apply(this, args);
};

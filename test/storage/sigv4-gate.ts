/**
 * A signature-checking gate in front of s3rver for tests (not a test file). s3rver accepts any
 * SigV4 signature made with a key id it knows (it does not compute V4 signatures), so reads with
 * vended credentials would pass whatever the signer did. The gate recomputes the signature of each
 * presigned GET (query-string SigV4, with node:crypto, independently of the AWS signer that made
 * it), checks expiry and the session token, and answers 403 SignatureDoesNotMatch before s3rver
 * sees a request that does not verify; requests that pass are forwarded unchanged.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s).digest();
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** What a presigned request must be signed with. */
export interface GateKeys { accessKeyId: string; secretAccessKey: string; sessionToken?: string }

/** Why a presigned (query-string SigV4) request does not verify, or null when it does. */
export function presignedProblem(req: IncomingMessage, keys: GateKeys, now = Date.now()): string | null {
  const url = new URL(req.url!, 'http://x');
  const q = url.searchParams;
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'not a SigV4 presigned request';
  const m = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(q.get('X-Amz-Credential') ?? '');
  if (!m) return 'malformed X-Amz-Credential';
  const [, akid, date, region, svc] = m as unknown as string[];
  if (akid !== keys.accessKeyId) return `unknown access key ${akid}`;
  if (svc !== 's3') return `signed for service ${svc}`;
  if (keys.sessionToken !== undefined && q.get('X-Amz-Security-Token') !== keys.sessionToken) return 'wrong or missing session token';
  const amzDate = q.get('X-Amz-Date') ?? '';
  if (!amzDate.startsWith(date!)) return 'X-Amz-Date does not match the credential scope';
  const at = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const expires = Number(q.get('X-Amz-Expires'));
  if (!(at - 5 * 60_000 < now) || !(now <= at + expires * 1000)) return 'request expired or not yet valid';
  const signedHeaders = q.get('X-Amz-SignedHeaders') ?? '';
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return 'host is not signed';
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const query = [...q].filter(([k]) => k !== 'X-Amz-Signature').map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join('&');
  const canonical = [req.method, url.pathname, query, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac('AWS4' + keys.secretAccessKey, date!), region!), 's3'), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex') === q.get('X-Amz-Signature') ? null : 'signature does not match';
}

/** A running gate. */
export interface SigV4Gate {
  endpoint: string;
  /** Presigned requests refused, with why. */
  refused: string[];
  /** Presigned requests that verified and were forwarded. */
  passed: number;
  /** Every GET made with a session token (vended credentials: presigned or header-signed), as `<token> <path>`. */
  vendedReads: string[];
  close(): Promise<void>;
}

/**
 * Forward to `upstreamPort` on loopback; presigned requests (and CORS preflights, which carry no
 * signature) are checked first. Other requests (the server's own SDK, header-signed) pass as they are.
 */
export async function startSigV4Gate(upstreamPort: number, keys: GateKeys): Promise<SigV4Gate> {
  const gate: SigV4Gate = { endpoint: '', refused: [], passed: 0, vendedReads: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const session = url.searchParams.get('X-Amz-Security-Token') ?? req.headers['x-amz-security-token'];
    if (req.method === 'GET' && typeof session === 'string') gate.vendedReads.push(`${session} ${url.pathname}`);
    if ((req.url ?? '').includes('X-Amz-Signature=')) {
      const problem = presignedProblem(req, keys);
      if (problem) {
        gate.refused.push(problem);
        req.resume();
        res.writeHead(403, { 'content-type': 'application/xml', ...(req.headers.origin ? { 'access-control-allow-origin': req.headers.origin } : {}) });
        res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
        return;
      }
      gate.passed++;
    }
    const up = request({ agent: false, host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  gate.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gate.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  return gate;
}

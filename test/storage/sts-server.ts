/**
 * A minimal STS endpoint on loopback for the credential-vending tests (not a test file). It checks
 * what a real STS checks before it answers AssumeRole — the SigV4 signature of the request
 * (recomputed here with node:crypto from the caller's secret, independently of the AWS SDK that
 * signed it), the action, version and parameters — records every request for the tests to assert
 * on (the exact session policy among them), and answers with the configured credentials in STS's
 * XML. It does not evaluate IAM policies: what the session policy allows is asserted on its text.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One AssumeRole the endpoint accepted. */
export interface AssumeRoleCall { RoleArn: string; RoleSessionName: string; DurationSeconds: number; Policy: string | null; accessKeyId: string }

export interface TestSts {
  endpoint: string;
  calls: AssumeRoleCall[];
  /** Signature failures and malformed requests seen (each answered with an error). */
  rejected: string[];
  /** Answer the next AssumeRole calls with this STS error instead (null: answer normally). */
  failWith: { status: number; code: string; message: string } | null;
  close(): Promise<void>;
}

export interface TestStsOptions {
  /** The caller's long-term keys (what the transaction server signs with). */
  caller: { accessKeyId: string; secretAccessKey: string };
  /** What AssumeRole hands out. */
  issue: { accessKeyId: string; secretAccessKey: string };
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s).digest();
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** Why a SigV4-signed request does not verify against `secret`, or null when it does. */
export function sigV4Problem(req: IncomingMessage, body: Buffer, keys: { accessKeyId: string; secretAccessKey: string }, service: string): string | null {
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return `not a SigV4 Authorization header: ${auth.slice(0, 60)}`;
  const [, akid, date, region, svc, signedHeaders, signature] = m as unknown as string[];
  if (akid !== keys.accessKeyId) return `unknown access key ${akid}`;
  if (svc !== service) return `signed for service ${svc}, not ${service}`;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date!)) return 'x-amz-date does not match the credential scope';
  const skew = Math.abs(Date.now() - Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')));
  if (!(skew < 5 * 60_000)) return 'request time too skewed';
  const names = signedHeaders!.split(';');
  if (!names.includes('host')) return 'host is not signed';
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const url = new URL(req.url!, 'http://x');
  const query = [...url.searchParams].map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join('&');
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? sha256(body));
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return 'payload hash does not match the body';
  const canonical = [req.method, url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${svc}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac('AWS4' + keys.secretAccessKey, date!), region!), svc!), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return expected === signature ? null : 'signature does not match';
}

function xmlError(code: string, message: string): string {
  return `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>test</RequestId></ErrorResponse>`;
}

/** Start the endpoint on 127.0.0.1, a free port. */
export async function startSts(opts: TestStsOptions): Promise<TestSts> {
  const sts: TestSts = { endpoint: '', calls: [], rejected: [], failWith: null, close: async () => {} };
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const reply = (status: number, xml: string) => res.writeHead(status, { 'content-type': 'text/xml' }).end(xml);
      const problem = sigV4Problem(req, body, opts.caller, 'sts');
      if (problem) { sts.rejected.push(problem); reply(403, xmlError('SignatureDoesNotMatch', problem)); return; }
      const form = new URLSearchParams(body.toString('utf8'));
      if (req.method !== 'POST' || form.get('Action') !== 'AssumeRole' || form.get('Version') !== '2011-06-15') {
        sts.rejected.push(`unexpected request ${req.method} ${form.get('Action')} ${form.get('Version')}`);
        reply(400, xmlError('InvalidAction', 'only AssumeRole')); return;
      }
      const duration = Number(form.get('DurationSeconds') ?? 3600);
      const policy = form.get('Policy');
      if (!form.get('RoleArn') || !/^[\w+=,.@-]{2,64}$/.test(form.get('RoleSessionName') ?? '') || !(duration >= 900 && duration <= 43200)) {
        sts.rejected.push('invalid AssumeRole parameters'); reply(400, xmlError('ValidationError', 'invalid parameters')); return;
      }
      if (policy !== null) {
        try { JSON.parse(policy); } catch { sts.rejected.push('policy is not JSON'); reply(400, xmlError('MalformedPolicyDocument', 'not JSON')); return; }
      }
      if (sts.failWith) { reply(sts.failWith.status, xmlError(sts.failWith.code, sts.failWith.message)); return; }
      sts.calls.push({ RoleArn: form.get('RoleArn')!, RoleSessionName: form.get('RoleSessionName')!, DurationSeconds: duration, Policy: policy, accessKeyId: opts.caller.accessKeyId });
      const expiration = new Date(Date.now() + duration * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      n++;
      reply(200, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>`
        + `<AccessKeyId>${opts.issue.accessKeyId}</AccessKeyId><SecretAccessKey>${opts.issue.secretAccessKey}</SecretAccessKey>`
        + `<SessionToken>session-token-${n}</SessionToken><Expiration>${expiration}</Expiration></Credentials>`
        + `<AssumedRoleUser><AssumedRoleId>AROATEST:${form.get('RoleSessionName')}</AssumedRoleId><Arn>arn:aws:sts::123456789012:assumed-role/test/${form.get('RoleSessionName')}</Arn></AssumedRoleUser>`
        + `<PackedPolicySize>10</PackedPolicySize></AssumeRoleResult><ResponseMetadata><RequestId>req-${n}</RequestId></ResponseMetadata></AssumeRoleResponse>`);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  sts.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sts.close = () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); });
  return sts;
}

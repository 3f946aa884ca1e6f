/**
 * The world's EC2 endpoint on 127.0.0.1: the Query API of `lib/sim/ec2-api.ts` behind IAM, as the
 * reconcile function reaches EC2. The caller is the principal its SigV4 `Authorization` header's
 * access key id names (ADR 0014: the signature itself is not verified); what IAM must allow is the
 * call's action on its resources with the volume's tags as `aws:ResourceTag/<key>`; a refusal is
 * EC2's `UnauthorizedOperation` (HTTP 403) with IAM's message, an unknown key `AuthFailure`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { type Ec2Answer, ec2Error, type SimEc2 } from '../sim/ec2-api.js';
import { AccessDeniedError, type LocalIam } from './iam/authority.js';
import { accessKeyOf } from './iam/http-front.js';
import { type LoopbackServer, listenOnLoopback } from './loopback.js';

/** Starts the endpoint (a free port); `iam` authorises every call when given. */
export async function startEc2Endpoint(ec2: SimEc2, iam?: LocalIam): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => send(res, answerOf(ec2, iam, req, new URLSearchParams(body))))
      .catch((err: unknown) => send(res, ec2Error(500, 'InternalError', `local EC2: ${err instanceof Error ? err.message : String(err)}`)));
  });
  return listenOnLoopback(server);
}

/** The answer to one request: IAM's refusal, or the world's EC2 answer. */
export function answerOf(ec2: SimEc2, iam: LocalIam | undefined, req: Pick<IncomingMessage, 'method' | 'headers'>, params: URLSearchParams): Ec2Answer {
  if (req.method !== 'POST') return ec2Error(400, 'InvalidAction', 'The Query API takes POST requests here.');
  if (iam === undefined) return ec2.answer(params);
  const accessKeyId = accessKeyOf(req.headers['authorization']);
  if (accessKeyId === undefined) return ec2Error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
  const principal = iam.principalOfAccessKey(accessKeyId);
  if (principal === undefined) return ec2Error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
  if (principal !== 'deployer') {
    try {
      for (const call of ec2.authorizations(params)) iam.authorize(principal, call.action, call.resources, call.context);
    } catch (err) {
      if (err instanceof AccessDeniedError) return ec2Error(403, 'UnauthorizedOperation', `You are not authorized to perform this operation. ${err.message}`);
      throw err;
    }
  }
  return ec2.answer(params);
}

function send(res: ServerResponse, answer: Ec2Answer): void {
  res.writeHead(answer.status, { 'content-type': 'text/xml;charset=UTF-8' });
  res.end(answer.body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

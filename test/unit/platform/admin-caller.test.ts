import { describe, expect, it } from '@jest/globals';

import { defaultAccessEntryUsername, principalOfCaller, readAdminEvent, renderAccessEntryUsername } from '../../../lib/platform/admin-caller.js';
import { functionUrlEvent } from '../../../lib/local/function-url.js';

const A = '111122223333';

describe('the admin caller', () => {
  it.each([
    { name: 'a role session maps to its role', arn: `arn:aws:sts::${A}:assumed-role/dba/alice@example.com`, principal: { principalArn: `arn:aws:iam::${A}:role/dba`, accountId: A, roleName: 'dba', sessionName: 'alice@example.com' } },
    { name: 'a role session in another partition keeps it', arn: `arn:aws-cn:sts::${A}:assumed-role/dba/s`, principal: { principalArn: `arn:aws-cn:iam::${A}:role/dba`, accountId: A, roleName: 'dba', sessionName: 's' } },
    { name: 'an IAM user is its own principal, path and all', arn: `arn:aws:iam::${A}:user/ops/bob`, principal: { principalArn: `arn:aws:iam::${A}:user/ops/bob`, accountId: A } },
  ])('$name', ({ arn, principal }) => {
    expect(principalOfCaller(arn)).toEqual({ ok: true, principal });
  });

  it.each([
    { name: 'a federated user', arn: `arn:aws:sts::${A}:federated-user/carol` },
    { name: 'the account root', arn: `arn:aws:iam::${A}:root` },
    { name: 'not an ARN', arn: 'alice' },
  ])('$name has no access entry principal', ({ arn }) => {
    expect(principalOfCaller(arn)).toEqual({ ok: false, error: expect.stringContaining('EKS access entries name IAM roles and users only') });
  });

  it.each([
    { name: 'a role: its session ARN with the session name as a template, path dropped', arn: `arn:aws:iam::${A}:role/team/dba`, want: `arn:aws:sts::${A}:assumed-role/dba/{{SessionName}}` },
    { name: 'a user: its ARN', arn: `arn:aws:iam::${A}:user/bob`, want: `arn:aws:iam::${A}:user/bob` },
  ])('default user name of $name', ({ arn, want }) => {
    expect(defaultAccessEntryUsername(arn)).toBe(want);
  });

  const session = { principalArn: `arn:aws:iam::${A}:role/dba`, accountId: A, roleName: 'dba', sessionName: 'alice@example.com' };
  it.each([
    { name: '{{SessionName}} has @ as -', template: 'u:{{SessionName}}', principal: session, want: { ok: true, username: 'u:alice-example.com' } },
    { name: '{{SessionNameRaw}} keeps it', template: '{{SessionNameRaw}}', principal: session, want: { ok: true, username: 'alice@example.com' } },
    { name: '{{AccountID}}', template: 'acct-{{AccountID}}', principal: session, want: { ok: true, username: `acct-${A}` } },
    { name: 'a session template for an IAM user is refused', template: '{{SessionName}}', principal: { principalArn: `arn:aws:iam::${A}:user/bob`, accountId: A }, want: { ok: false, error: expect.stringContaining('uses {{SessionName}}, which has no value') } },
    { name: 'a node template is refused', template: 'system:node:{{EC2PrivateDNSName}}', principal: session, want: { ok: false, error: expect.stringContaining('{{EC2PrivateDNSName}}') } },
  ])('renders $name', ({ template, principal, want }) => {
    expect(renderAccessEntryUsername(template, principal)).toEqual(want);
  });

  it.each([
    { name: 'a direct invoke payload', event: { action: 'status' }, want: { kind: 'direct', payload: { action: 'status' } } },
    { name: 'a function URL request', event: functionUrlEvent('{"action":"pause"}', { arn: `arn:aws:iam::${A}:user/bob`, accountId: A }), want: { kind: 'url', payload: { action: 'pause' }, caller: { arn: `arn:aws:iam::${A}:user/bob`, accountId: A } } },
    { name: 'a base64 body', event: { ...functionUrlEvent('', { arn: `arn:aws:iam::${A}:user/bob`, accountId: A }), body: Buffer.from('{"action":"pause"}').toString('base64'), isBase64Encoded: true }, want: expect.objectContaining({ kind: 'url', payload: { action: 'pause' } }) },
    { name: 'a GET', event: { ...functionUrlEvent('', { arn: 'x', accountId: A }), requestContext: { http: { method: 'GET' }, authorizer: { iam: { userArn: 'x' } } } }, want: { kind: 'url-error', statusCode: 405, error: expect.stringContaining('POST the admin request') } },
  ])('reads $name', ({ event, want }) => {
    expect(readAdminEvent(event)).toEqual(want);
  });
});

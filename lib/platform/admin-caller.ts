/**
 * Who is calling the admin function, from what Lambda hands the handler. Two shapes arrive:
 *
 * - a **function URL** event (payload format 2.0; the URL's auth type is `AWS_IAM`): Lambda has
 *   verified the request's SigV4 signature and names the signer in
 *   `requestContext.authorizer.iam.userArn` — the caller identity the function can trust
 *   (https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, "Request payload");
 * - a **direct invoke** (`aws lambda invoke`): the payload is the admin request itself, and nothing
 *   in it says who invoked.
 *
 * And how an IAM caller maps to its EKS access entry: an assumed-role session
 * (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`) has the entry of its role
 * (`arn:aws:iam::ACCOUNT:role/ROLE`; access entries never name STS sessions), an IAM user the entry of
 * its own ARN. The entry's user name may be a template, rendered as EKS renders it. Pure: no I/O.
 */

/** The caller as Lambda verified it (function URL with AWS_IAM auth). */
export type AdminCaller = { readonly arn: string; readonly accountId: string };

/** What the handler was given: a direct invoke's payload, or a function URL request (or why it cannot be read). */
export type AdminInvocationEvent =
  | { readonly kind: 'direct'; readonly payload: unknown }
  | { readonly kind: 'url'; readonly payload: unknown; readonly caller: AdminCaller }
  | { readonly kind: 'url-error'; readonly statusCode: number; readonly error: string };

/** Tells a function URL event from a direct payload and reads it. Never throws. */
export function readAdminEvent(event: unknown): AdminInvocationEvent {
  if (!isRecord(event) || event['version'] !== '2.0' || !isRecord(event['requestContext'])) return { kind: 'direct', payload: event };
  const context = event['requestContext'];
  const method = isRecord(context['http']) ? context['http']['method'] : undefined;
  if (method !== 'POST') return { kind: 'url-error', statusCode: 405, error: `POST the admin request as JSON (got ${String(method)})` };
  const iam = isRecord(context['authorizer']) && isRecord(context['authorizer']['iam']) ? context['authorizer']['iam'] : undefined;
  const arn = iam?.['userArn'];
  if (typeof arn !== 'string' || arn === '') {
    return { kind: 'url-error', statusCode: 403, error: 'the request carries no verified IAM caller: the admin function URL must use AWS_IAM auth' };
  }
  const body = typeof event['body'] === 'string' ? event['body'] : '';
  const text = event['isBase64Encoded'] === true ? Buffer.from(body, 'base64').toString('utf8') : body;
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return { kind: 'url-error', statusCode: 400, error: 'the request body is not JSON (the admin request, e.g. {"action": "pause", "cluster": {...}})' };
  }
  const accountId = typeof iam?.['accountId'] === 'string' ? iam['accountId'] : '';
  return { kind: 'url', payload, caller: { arn, accountId } };
}

/** The IAM principal an access entry names for a caller, and what its user name templates need. */
export type CallerPrincipal = {
  readonly principalArn: string;
  readonly accountId: string;
  /** For a role session: the role's name (a role ARN with a path is found by it) and the session name. */
  readonly roleName?: string;
  readonly sessionName?: string;
};

const STS_SESSION = /^arn:([a-z-]+):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/([\w+=,.@-]+)$/;
const IAM_USER = /^arn:([a-z-]+):iam::(\d{12}):user\/(?:[\x21-\x7e]*\/)?[\w+=,.@-]+$/;

/**
 * The access-entry principal of a caller ARN, or why there is none (federated users and root are
 * not IAM principals an access entry can name).
 */
export function principalOfCaller(callerArn: string): { ok: true; principal: CallerPrincipal } | { ok: false; error: string } {
  const session = STS_SESSION.exec(callerArn);
  if (session) {
    const [, partition, accountId = '', roleName = '', sessionName = ''] = session;
    return { ok: true, principal: { principalArn: `arn:${partition}:iam::${accountId}:role/${roleName}`, accountId, roleName, sessionName } };
  }
  const user = IAM_USER.exec(callerArn);
  if (user) return { ok: true, principal: { principalArn: callerArn, accountId: user[2] ?? '' } };
  return { ok: false, error: `${callerArn} is not an IAM role session or IAM user: EKS access entries name IAM roles and users only` };
}

/**
 * The user name EKS gives an access entry created without one (EKS user guide, "Create access
 * entries": a role's is `arn:aws:sts::ACCOUNT:assumed-role/ROLE/{{SessionName}}`, a user's its ARN).
 * A role ARN's path is not part of the STS session ARN, so it is dropped.
 */
export function defaultAccessEntryUsername(principalArn: string): string {
  const role = /^arn:([a-z-]+):iam::(\d{12}):role\/(?:.*\/)?([\w+=,.@-]+)$/.exec(principalArn);
  return role ? `arn:${role[1]}:sts::${role[2]}:assumed-role/${role[3]}/{{SessionName}}` : principalArn;
}

/**
 * Renders an access entry's user name for this caller, as EKS does (the templates of
 * aws-iam-authenticator's mapper: `{{AccountID}}`, `{{SessionName}}` with `@` made `-`,
 * `{{SessionNameRaw}}`). Any other template (e.g. `{{EC2PrivateDNSName}}`, a node's) cannot name a
 * person: refused.
 */
export function renderAccessEntryUsername(template: string, principal: CallerPrincipal): { ok: true; username: string } | { ok: false; error: string } {
  let error: string | undefined;
  const username = template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => {
    if (name === 'AccountID') return principal.accountId;
    if ((name === 'SessionName' || name === 'SessionNameRaw') && principal.sessionName !== undefined) {
      return name === 'SessionName' ? principal.sessionName.replace(/@/g, '-') : principal.sessionName;
    }
    error ??= `the access entry's user name "${template}" uses ${whole}, which has no value for the caller`;
    return whole;
  });
  return error === undefined ? { ok: true, username } : { ok: false, error };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

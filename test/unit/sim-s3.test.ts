/**
 * The simulated S3's access decisions and error codes
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html): credentials checked before
 * the bucket, the bucket before the policy; a bucket's allowed roles and keys evaluated with IAM's
 * logic (an explicit Deny wins); ServiceUnavailable while `s3-down` lasts.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { S3Error, type S3Credentials, SimS3 } from '../../lib/sim/backup/s3.js';

const ROLE = 'arn:aws:iam::123456789012:role/tidb-backup';
const keys = (accessKeyId: string, secretAccessKey: string): S3Credentials => ({ kind: 'keys', accessKeyId, secretAccessKey });
const role = (roleArn: string): S3Credentials => ({ kind: 'role', roleArn });

function s3(clock = new VirtualClock(0)): SimS3 {
  return new SimS3(clock, [
    { name: 'backups', region: 'us-west-2', allowRoles: [ROLE], allowKeys: [{ accessKey: 'AKIAEXAMPLE', secretKey: 'example' }], statements: [{ Effect: 'Deny', Action: 's3:DeleteObject', Resource: 'arn:aws:s3:::backups/keep/*' }] },
    { name: 'other', region: 'eu-west-1', allowKeys: [{ accessKey: 'AKIAOTHER', secretKey: 'o' }] },
  ]);
}

describe('SimS3', () => {
  it.each([
    { name: 'the allowed role', who: role(ROLE), bucket: 'backups', code: undefined },
    { name: 'the allowed key pair', who: keys('AKIAEXAMPLE', 'example'), bucket: 'backups', code: undefined },
    { name: 'a key no bucket lists', who: keys('AKIANOBODY', 'x'), bucket: 'backups', code: 'InvalidAccessKeyId' },
    { name: 'a known key with the wrong secret', who: keys('AKIAEXAMPLE', 'nope'), bucket: 'backups', code: 'SignatureDoesNotMatch' },
    { name: 'a key of another bucket', who: keys('AKIAOTHER', 'o'), bucket: 'backups', code: 'AccessDenied' },
    { name: 'a role the bucket does not list', who: role('arn:aws:iam::123456789012:role/x'), bucket: 'backups', code: 'AccessDenied' },
    { name: 'a bucket that does not exist', who: role(ROLE), bucket: 'missing', code: 'NoSuchBucket' },
  ])('PutObject with $name: $code', ({ who, bucket, code }) => {
    // Act
    let refused: string | undefined;
    try {
      s3().put(who, bucket, 'demo/backupmeta', 10);
    } catch (err) {
      refused = err instanceof S3Error ? err.code : String(err);
    }

    // Assert
    expect(refused).toBe(code);
  });

  it('an explicit Deny in the bucket policy wins over the allowed role (DeleteObject under keep/)', () => {
    // Prepare
    const s = s3();
    s.put(role(ROLE), 'backups', 'keep/a', 1);
    s.put(role(ROLE), 'backups', 'tmp/a', 1);

    // Act
    const denied = (): void => s.delete(role(ROLE), 'backups', ['keep/a']);
    s.delete(role(ROLE), 'backups', ['tmp/a']);

    // Assert
    expect(denied).toThrow('AccessDenied: Access Denied');
    expect(s.contents().backups).toEqual(['keep/a']);
  });

  it('s3-down: every request fails with ServiceUnavailable until it is over', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const s = s3(clock);
    s.setDown(120_000);

    // Act
    const during = (): unknown => s.list(role(ROLE), 'backups', '');

    // Assert
    expect(during).toThrow('ServiceUnavailable');
    await clock.advance(120_000);
    expect(s.list(role(ROLE), 'backups', '')).toEqual([]);
  });

  it('GetObject of an absent key is NoSuchKey; the object listing is by prefix in key order', () => {
    // Prepare
    const s = s3();
    for (const k of ['p/b', 'p/a', 'q/a']) s.put(role(ROLE), 'backups', k, 1);

    // Assert
    expect(() => s.get(role(ROLE), 'backups', 'p/zz')).toThrow('NoSuchKey');
    expect(s.list(role(ROLE), 'backups', 'p/').map((o) => o.key)).toEqual(['p/a', 'p/b']);
  });
});

/** The Lambda context the simulated stacks hand every invocation. */
import type { Context } from 'aws-lambda';

/** The simulated Lambda context every invocation gets (60 s budget, as the deployed functions). */
export function simulatedContext(id: string): Context {
  return {
    awsRequestId: id,
    functionName: 'tidb-reconciler-simulate',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:tidb-reconciler-simulate',
    memoryLimitInMB: '1024',
    logGroupName: '/aws/lambda/simulate',
    logStreamName: 'simulate',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

// The cdk-nag findings that stay, each with the reason it is accepted.

import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag AwsSolutions findings that stay, each with the reason it is accepted. Everything else
 * was fixed: own roles without AWS managed policies (IAM4), API access logs (APIG1), TLS-only
 * SNS topic (SNS3), PITR (DDB3).
 *
 * Ids are cdk-nag rule ids without the `AwsSolutions::` plugin prefix: so written, cdk-nag itself
 * honours them (in `validateScope` as in the synth), not only the CDK's report filter.
 * A granular finding is acknowledged by its full id, `Rule[finding]` (cdk-nag 3's `appliesTo`).
 */
export interface NagAcknowledgement {
  id: string;
  reason: string;
}

/** Acknowledged on the whole stack. */
export function stackAcknowledgements(tableLogicalId: string): NagAcknowledgement[] {
  return [
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization is checked inside every function by the endpoint middleware (jose, HS256 pinned), ' +
        'from the auth level of its route-table row, so local and cloud behave the same. ' +
        'Public routes are public by the spec (§5.5).',
    },
    {
      id: 'AwsSolutions-L1',
      reason: 'The owner fixed the runtime at Node.js 22; moving to a newer one is a decision of theirs.',
    },
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'No automatic rotation: rotating the JWT key or the OTP pepper would log everyone out and void codes in ' +
        'flight, so it is done by hand in a quiet hour; the webhook secret, aggregator key, RADIUS secret and ' +
        'canary password are shared with outside parties and must change in step with them.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      reason:
        "grantReadData/grantReadWriteData cover the table's own GSIs (gsi1 to gsi4) by the index/* form; the " +
        'actions are the scoped DynamoDB item actions, never dynamodb:*.',
    },
  ];
}

/** Acknowledged on the OTP request function only (the one row with `sns: 'sms'`). */
export const SMS_PUBLISH_ACKNOWLEDGEMENT: NagAcknowledgement = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason:
    'sns:Publish straight to a phone number (the OTP SMS) has no resource ARN to scope to. Only the function ' +
    "of the route-table row with sns: 'sms' has it, limited to the stack's region, and a Deny on " +
    'arn:aws:sns:*:*:* keeps it from publishing to any topic or platform endpoint.',
};

export function acknowledge(scope: IConstruct, acks: readonly NagAcknowledgement[]): void {
  for (const a of acks) Validations.of(scope).acknowledge(a);
}

/** Acknowledged on the role of each stream consumer (functions/streams.ts) only. */
export const STREAM_LIST_ACKNOWLEDGEMENT: NagAcknowledgement = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason:
    "dynamodb:ListStreams, which Lambda's event source mapping needs, has no resource-level permission; " +
    "the stream's own reads (DescribeStream, GetShardIterator, GetRecords) are on this table's stream ARN.",
};
